import { posix } from 'node:path';
import type { Ecosystem } from '../../repo/fingerprint-types.js';

/** Manifest basenames per ecosystem, in the order we would recommend adding a dependency to them. */
const PREFERRED: Record<Ecosystem, string[]> = {
  python: ['pyproject.toml', 'requirements.txt', 'setup.cfg', 'setup.py', 'Pipfile'],
  npm: ['package.json'],
  go: ['go.mod'],
  rust: ['Cargo.toml'],
  ruby: ['Gemfile'],
  php: ['composer.json'],
  java: ['pom.xml', 'build.gradle', 'build.gradle.kts'],
};

function rank(ecosystem: Ecosystem, path: string): number {
  const base = posix.basename(path);
  const i = PREFERRED[ecosystem].indexOf(base);
  if (i >= 0) return i;
  if (ecosystem === 'python' && /\.(txt|in)$/.test(base)) return PREFERRED.python.length; // other requirement files
  return -1;
}

/**
 * The manifest a dependency of `file` belongs in: the one of its ecosystem in the nearest folder
 * above the file (preferring pyproject.toml over requirements files), else the conventional name.
 */
export function manifestFor(ecosystem: Ecosystem, file: string, manifests: string[]): string {
  const candidates = manifests.filter((m) => rank(ecosystem, m) >= 0);
  for (let dir = posix.dirname(file); ; dir = posix.dirname(dir)) {
    const prefix = dir === '.' ? '' : `${dir}/`;
    const here = candidates
      .filter((m) => posix.dirname(m) === (dir === '.' ? '.' : dir) || (prefix === '' && !m.includes('/')))
      .sort((a, b) => rank(ecosystem, a) - rank(ecosystem, b));
    if (here.length) return here[0]!;
    if (dir === '.' || dir === '/' || dir === '') break;
  }
  const shallowest = candidates.sort((a, b) => a.split('/').length - b.split('/').length || rank(ecosystem, a) - rank(ecosystem, b))[0];
  return shallowest ?? PREFERRED[ecosystem][0]!;
}
