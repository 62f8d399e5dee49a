import { isTable } from '../../repo/manifests/toml-read.js';

/**
 * Poetry's version constraints as PEP 508 requirements, so that pip can install a Poetry project's
 * dependency groups: `^1.2.3` → `>=1.2.3,<2.0.0`, `~1.2` → `>=1.2,<1.3`, `1.2.3` → `==1.2.3`, `*` → any.
 * A path, git or URL dependency, or an optional one (installed only through an extra), gives null.
 */

function bump(parts: number[], at: number): string {
  const out = parts.slice(0, at + 1);
  out[at] = (out[at] ?? 0) + 1;
  return out.join('.');
}

function one(c: string): string | null {
  const s = c.trim();
  if (!s || s === '*') return '';
  const caret = /^\^\s*(\d+(?:\.\d+){0,2})$/.exec(s);
  if (caret) {
    const parts = caret[1]!.split('.').map(Number);
    const first = parts.findIndex((p) => p !== 0);
    const at = first === -1 ? parts.length - 1 : Math.min(first, parts.length - 1);
    return `>=${caret[1]!},<${bump(parts, at)}`;
  }
  const tilde = /^~(?!=)\s*(\d+(?:\.\d+){0,2})$/.exec(s);
  if (tilde) {
    const parts = tilde[1]!.split('.').map(Number);
    return `>=${tilde[1]!},<${bump(parts, parts.length === 1 ? 0 : 1)}`;
  }
  if (/^\d[\w.*+!-]*$/.test(s)) return `==${s}`;
  if (/^(>=|<=|>|<|==|!=|~=)\s*\d[\w.*+!-]*$/.test(s)) return s.replace(/\s+/g, '');
  return null;
}

/** A Poetry constraint (`>=1.2, <2`, `^1.0`), or null when it cannot be written in PEP 440 (`||`). */
function constraint(spec: string): string | null {
  if (spec.includes('||')) return null;
  const parts = spec.split(/,|\s+(?=[<>=!~^])/).map(one);
  if (parts.some((p) => p === null)) return null;
  return parts.filter(Boolean).join(',');
}

export function poetryRequirement(name: string, spec: unknown): string | null {
  if (typeof spec === 'string') {
    const c = constraint(spec);
    return c === null ? name : `${name}${c}`;
  }
  if (Array.isArray(spec)) return spec.length ? poetryRequirement(name, spec[0]) : name;
  if (!isTable(spec)) return name;
  if ('path' in spec || 'git' in spec || 'url' in spec || spec.optional === true) return null;
  const extras = Array.isArray(spec.extras) ? spec.extras.filter((e): e is string => typeof e === 'string') : [];
  const version = typeof spec.version === 'string' ? constraint(spec.version) : '';
  const markers = typeof spec.markers === 'string' ? `; ${spec.markers}` : '';
  return `${name}${extras.length ? `[${extras.join(',')}]` : ''}${version ?? ''}${markers}`;
}
