import { posix } from 'node:path';

/**
 * Path rules of G1: which files are build manifests, lockfiles and sensitive paths. Matching is
 * case-insensitive everywhere: on macOS and Windows checkouts `.ENV` and `.env` are the same file,
 * so a case-sensitive list would be a bypass.
 */

/** Build manifests (basename, lower-cased, any depth). `requirements*.txt` is matched separately. */
const MANIFESTS = new Set([
  'go.mod',
  'cargo.toml',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'pipfile',
  'package.json',
  'gemfile',
  'composer.json',
  'build.gradle',
  'build.gradle.kts',
  'pom.xml',
]);

/** Basename glob of pip requirements files (`requirements.txt`, `requirements-dev.txt`, …). */
const REQUIREMENTS_GLOB = 'requirements*.txt';

/** A glob that matches `name` in any letter case (`go.mod` → `[gG][oO].[mM][oO][dD]`). */
function anyCase(name: string): string {
  return name.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
}

/**
 * The build manifests of G1 as picomatch globs (any depth, any letter case): exactly the paths
 * {@link isManifest} accepts. The `slopgate:allow-manifest` label sanctions these.
 */
export const MANIFEST_GLOBS: readonly string[] = [...MANIFESTS, REQUIREMENTS_GLOB].map((name) => `**/${anyCase(name)}`);

/** Lockfile basename (lower-cased) → the manifest basenames (lower-cased) whose edit explains it. */
const LOCKFILE_MANIFESTS: Record<string, string[]> = {
  'package-lock.json': ['package.json'],
  'npm-shrinkwrap.json': ['package.json'],
  'yarn.lock': ['package.json'],
  'pnpm-lock.yaml': ['package.json', 'pnpm-workspace.yaml'],
  'pipfile.lock': ['pipfile'],
  'poetry.lock': ['pyproject.toml'],
  'uv.lock': ['pyproject.toml'],
  'cargo.lock': ['cargo.toml'],
  'gemfile.lock': ['gemfile'],
  'composer.lock': ['composer.json'],
  'go.sum': ['go.mod', 'go.work'],
};

/** Directory names that hold credentials or repository internals, at any depth. */
const SECRET_DIRS = new Set(['.git', '.aws', '.ssh', '.docker', '.gcp', '.azure', '.kube']);

/** Files (basename, lower-cased) that configure credentials, registries or git itself. */
const SENSITIVE_FILES: Record<string, string> = {
  '.npmrc': 'npm registry and token configuration',
  '.yarnrc': 'yarn registry and token configuration',
  '.yarnrc.yml': 'yarn registry and token configuration',
  '.pypirc': 'PyPI upload credentials',
  '.netrc': 'machine login credentials',
  '.git-credentials': 'stored git credentials',
  '.envrc': 'direnv environment (often secrets)',
  '.gitmodules': 'submodule sources (what every clone fetches)',
  '.gitattributes': 'git filters and merge drivers',
};

/** Last dot-segment of `.env.<…>` that marks a committed template rather than real values. */
const ENV_TEMPLATE_SUFFIXES = new Set([
  'example',
  'examples',
  'sample',
  'samples',
  'template',
  'templates',
  'tmpl',
  'tpl',
  'dist',
  'defaults',
  'schema',
]);

/** The three places GitHub reads CODEOWNERS from. */
const CODEOWNERS_DIRS = new Set(['', '.github', 'docs']);

/** Normalises an untrusted repo path: forward slashes, no `./` or empty segments. */
export function normalizeRepoPath(path: string): string {
  return posix
    .normalize(path.replace(/\\/g, '/'))
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
}

function parts(path: string): string[] {
  return normalizeRepoPath(path).toLowerCase().split('/').filter(Boolean);
}

export function basenameLower(path: string): string {
  return parts(path).at(-1) ?? '';
}

export function dirnameOf(path: string): string {
  const p = normalizeRepoPath(path);
  const slash = p.lastIndexOf('/');
  return slash < 0 ? '' : p.slice(0, slash);
}

export function isManifest(path: string): boolean {
  const base = basenameLower(path);
  return MANIFESTS.has(base) || /^requirements[^/]*\.txt$/.test(base);
}

/** The manifests that explain a change of this lockfile, or null when it is not a lockfile. */
export function lockfileManifests(path: string): string[] | null {
  return LOCKFILE_MANIFESTS[basenameLower(path)] ?? null;
}

/** Why `.env*` files matter: null for templates and for names that are not env files. */
function envFileReason(base: string): string | null {
  if (base === '.env') return 'an environment file (usually holds secrets)';
  if (!base.startsWith('.env.')) return null;
  const last = base.split('.').at(-1) ?? '';
  if (ENV_TEMPLATE_SUFFIXES.has(last)) return null;
  return 'an environment file (usually holds secrets)';
}

/**
 * Why a path is sensitive (a short phrase), or null. Lockfiles are not covered here: whether a
 * lockfile edit is sensitive depends on the other files of the PR.
 */
export function sensitiveReason(path: string): string | null {
  const segs = parts(path);
  if (segs.length === 0) return null;
  const base = segs[segs.length - 1]!;
  const dirs = segs.slice(0, -1);
  const secretDir = dirs.find((d) => SECRET_DIRS.has(d));
  if (secretDir) return `inside \`${secretDir}/\` (credentials or repository internals)`;
  for (let i = 0; i + 1 < dirs.length; i++) {
    if (dirs[i] === '.github' && dirs[i + 1] === 'workflows') return 'a GitHub Actions workflow (runs with repository secrets)';
    if (dirs[i] === '.github' && dirs[i + 1] === 'actions') return 'a local GitHub Action (runs inside workflows)';
  }
  if (base === 'codeowners' && CODEOWNERS_DIRS.has(dirs.join('/'))) return 'CODEOWNERS (decides who must approve changes)';
  const env = envFileReason(base);
  if (env) return env;
  return SENSITIVE_FILES[base] ?? null;
}
