import { posix } from 'node:path';
import type { GuardFinding } from '../../core/guard.js';
import type { G4FenceEvidence } from './evidence.js';

function normalise(path: string): string | null {
  const p = posix.normalize(path.replace(/\\/g, '/')).replace(/^\.\//, '');
  if (!p || p === '.' || p.startsWith('../') || p === '..' || p.startsWith('/')) return null;
  return p;
}

/**
 * G4 (c), for the refiner: every changed path must be one of the allowed paths (the files its
 * findings name). An allowed entry ending in `/` admits the whole folder. Paths are normalised
 * (`./a`, `a//b`); a path that escapes the repository is never allowed.
 */
export function checkFileFence(changedPaths: readonly string[], allowedPaths: readonly string[]): GuardFinding[] {
  const exact = new Set<string>();
  const folders: string[] = [];
  for (const a of allowedPaths) {
    const n = normalise(a);
    if (!n) continue;
    if (a.endsWith('/')) folders.push(`${n.replace(/\/$/, '')}/`);
    else exact.add(n);
  }
  const allowedList = [...exact, ...folders].sort();
  const shown = allowedList.slice(0, 8).join(', ') + (allowedList.length > 8 ? ', …' : '');
  const out: GuardFinding[] = [];
  const seen = new Set<string>();
  for (const raw of changedPaths) {
    const p = normalise(raw);
    const key = p ?? raw;
    if (seen.has(key)) continue;
    seen.add(key);
    if (p && (exact.has(p) || folders.some((f) => p.startsWith(f)))) continue;
    out.push({
      category: 'scope-creep',
      severity: 'fail',
      path: p ?? raw,
      message: `The refiner patch changes '${p ?? raw}', which none of the findings it was asked to fix names (allowed: ${shown || 'nothing'}).`,
      remediation: `Drop the change to '${p ?? raw}'; a refiner patch may only touch the files of its findings.`,
      evidence: { allowed: allowedList } satisfies G4FenceEvidence,
    });
  }
  return out;
}
