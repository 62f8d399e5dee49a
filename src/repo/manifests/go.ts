import type { ManifestInfo } from '../fingerprint-types.js';

function stripComment(line: string): string {
  const i = line.indexOf('//');
  return (i >= 0 ? line.slice(0, i) : line).trim();
}

function unquote(s: string): string {
  return s.replace(/^["`](.*)["`]$/, '$1');
}

/**
 * go.mod: the `module` path (imports under it are module-local) and every `require`d module path,
 * single-line or in a `require ( … )` block; `// indirect` requirements count (they are importable).
 */
export function parseGoMod(_path: string, text: string): ManifestInfo {
  const deps = new Set<string>();
  const modules: string[] = [];
  let inRequire = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = stripComment(raw);
    if (!line) continue;
    if (inRequire) {
      if (line === ')') {
        inRequire = false;
        continue;
      }
      const path = line.split(/\s+/)[0];
      if (path) deps.add(unquote(path));
      continue;
    }
    const module = /^module\s+(\S+)/.exec(line);
    if (module) {
      modules.push(unquote(module[1]!));
      continue;
    }
    if (/^require\s*\($/.test(line)) {
      inRequire = true;
      continue;
    }
    const single = /^require\s+(\S+)\s+\S+/.exec(line);
    if (single) deps.add(unquote(single[1]!));
  }
  return { ecosystem: 'go', deps: [...deps], goModules: modules };
}
