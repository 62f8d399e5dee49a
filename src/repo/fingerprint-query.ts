import type { Ecosystem, RepoFingerprint } from './fingerprint-types.js';
import { pep503 } from './manifests/python-names.js';

/** Every declared dependency of every ecosystem, lower-cased (for substring/framework grounding). */
export function allDeps(fp: RepoFingerprint): string[] {
  return Object.values(fp.deps).flat();
}

/** True when `name` is declared in `ecosystem`, compared the way that ecosystem compares names. */
export function declares(fp: RepoFingerprint, ecosystem: Ecosystem, name: string): boolean {
  const list = fp.deps[ecosystem];
  switch (ecosystem) {
    case 'python':
      return list.includes(pep503(name));
    case 'rust': {
      const crate = name.toLowerCase().replace(/-/g, '_');
      return list.some((d) => d.replace(/-/g, '_') === crate);
    }
    case 'go':
      return list.includes(name);
    default:
      return list.includes(name.toLowerCase());
  }
}

/** True when the fingerprint grounds framework id `id` (inferred, or a dependency of that very name). */
export function hasFramework(fp: RepoFingerprint, id: string): boolean {
  const lower = id.toLowerCase();
  return fp.frameworks.includes(lower) || allDeps(fp).includes(lower);
}
