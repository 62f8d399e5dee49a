import semver from 'semver';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { isRecord } from '../../core/is-record.js';
import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { pep503 } from '../../repo/manifests/python-names.js';
import { describeChange, type DependencyChange } from './dependency-diff.js';
import { dirnameOf } from './path-rules.js';
import type { G1StaleLockfileEvidence } from './evidence.js';

/**
 * A manifest whose declared dependencies the PR changes while the lockfile that pins them stays as it
 * was: the project's installer in frozen/locked mode refuses it. Each tool's own rule decides what is
 * stale (see LOCKS); a lockfile the repository does not commit is no finding.
 */

interface Lock {
  /** Lockfile basename. */
  file: string;
  /** The manifest basename it pins. */
  manifest: string;
  /** May a lockfile in a parent folder cover the manifest (a workspace root)? */
  workspace: boolean;
  /** The command that refuses a stale lockfile, for the message. */
  refuses: string;
  /** How to regenerate it. */
  fix: string;
  /** CI commands (in workflows) that install in frozen/locked mode with this tool. */
  ciFrozen: RegExp;
  /**
   * The changes this lockfile does not account for (empty: it is up to date for them), or null when it
   * cannot tell (then no finding). `rel` is the manifest's folder relative to the lockfile's.
   */
  stale(lock: string, rel: string, changes: DependencyChange[], manifest: string): DependencyChange[] | null;
}

const NPM_GROUPS = new Set(['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']);
const npmChanges = (changes: DependencyChange[]) => changes.filter((c) => NPM_GROUPS.has(c.group));

/** The range a locked version must satisfy, or null when the spec is no semver range (git, file:, alias). */
function npmRange(spec: string | undefined): string | null {
  if (!spec) return null;
  return semver.validRange(spec) ? spec : null;
}

const npmLock: Lock['stale'] = (text, rel, changes) => {
  const doc: unknown = JSON.parse(text);
  if (!isRecord(doc) || !isRecord(doc.packages)) return null; // lockfileVersion 1: not read
  const packages = doc.packages;
  const importer = packages[rel];
  if (!isRecord(importer)) return null; // not a member this lockfile covers
  const declared = (name: string) =>
    [...NPM_GROUPS].some((g) => {
      const group = importer[g];
      return isRecord(group) && group[name] !== undefined;
    });
  const lockedVersion = (name: string): string | undefined => {
    for (const key of [rel ? `${rel}/node_modules/${name}` : '', `node_modules/${name}`]) {
      const entry = key ? packages[key] : undefined;
      if (isRecord(entry) && typeof entry.version === 'string') return entry.version;
    }
    return undefined;
  };
  return npmChanges(changes).filter((c) => {
    if (c.kind === 'added') return !declared(c.name);
    if (c.kind === 'removed') return declared(c.name);
    // npm ci rebuilds the tree from package.json and the lockfile and refuses when they differ: a new
    // range the locked version still satisfies changes nothing, one it does not is a mismatch.
    const range = npmRange(c.after);
    const version = lockedVersion(c.name);
    if (!range || !version || !semver.valid(version)) return false;
    return !semver.satisfies(version, range, { includePrerelease: true });
  });
};

const pnpmLock: Lock['stale'] = (text, rel, changes) => {
  const doc: unknown = parseYaml(text, { maxAliasCount: 100 });
  if (!isRecord(doc)) return null;
  const importer = isRecord(doc.importers) ? doc.importers[rel || '.'] : rel === '' ? doc : undefined;
  if (!isRecord(importer)) return null;
  // The specifier pnpm recorded for `name` (lockfile v6+: in each group; v5: a `specifiers` map).
  const specifier = (name: string): string | undefined => {
    if (isRecord(importer.specifiers) && typeof importer.specifiers[name] === 'string') return importer.specifiers[name];
    for (const g of ['dependencies', 'devDependencies', 'optionalDependencies']) {
      const group = importer[g];
      const entry = isRecord(group) ? group[name] : undefined;
      if (isRecord(entry) && typeof entry.specifier === 'string') return entry.specifier;
    }
    return undefined;
  };
  // pnpm install --frozen-lockfile compares each specifier with package.json's exactly.
  return npmChanges(changes).filter((c) => {
    if (c.group === 'peerDependencies') return false;
    const recorded = specifier(c.name);
    if (c.kind === 'removed') return recorded !== undefined;
    return recorded !== c.after;
  });
};

const yarnLock: Lock['stale'] = (text, _rel, changes) => {
  // Entries are keyed by `name@range` (classic) or `name@npm:range` (berry): a range no key lists
  // has no resolution, and --frozen-lockfile/--immutable refuse to add one.
  const keys = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    if (/^\s/.test(line) || !line.trim().endsWith(':')) continue;
    for (const part of line.trim().slice(0, -1).split(/,\s*/)) keys.add(part.replace(/^"|"$/g, ''));
  }
  return npmChanges(changes).filter((c) => {
    if (c.kind === 'removed' || c.group === 'peerDependencies' || !c.after) return false;
    return !keys.has(`${c.name}@${c.after}`) && !keys.has(`${c.name}@npm:${c.after}`);
  });
};

/** A PEP 440 specifier set in a comparable form: no spaces, clauses sorted. */
const pySpec = (s: string | undefined) => (s ?? '').split(';')[0]!.replace(/\s+/g, '').split(',').filter(Boolean).sort().join(',');

const PY_LOCKED_GROUPS = /^(project\.dependencies|optional-dependencies\.|dependency-groups\.)/;

const uvLock: Lock['stale'] = (text, _rel, changes, manifest) => {
  const doc: Record<string, unknown> = parseToml(text);
  const project = parseToml(manifest).project;
  if (!isRecord(project) || typeof project.name !== 'string') return null;
  const own = pep503(project.name);
  const packages: unknown[] = Array.isArray(doc.package) ? doc.package : [];
  const pkg = packages.find((p) => isRecord(p) && typeof p.name === 'string' && pep503(p.name) === own);
  if (!isRecord(pkg) || !isRecord(pkg.metadata)) return null;
  // uv sync --locked compares the project's requirements with the `requires-dist` / `requires-dev`
  // the lockfile recorded, and refuses on any difference.
  const recorded = new Map<string, string[]>();
  const add = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const r of list)
      if (isRecord(r) && typeof r.name === 'string') {
        const name = pep503(r.name);
        recorded.set(name, [...(recorded.get(name) ?? []), pySpec(typeof r.specifier === 'string' ? r.specifier : '')]);
      }
  };
  add(pkg.metadata['requires-dist']);
  if (isRecord(pkg.metadata['requires-dev'])) for (const list of Object.values(pkg.metadata['requires-dev'])) add(list);
  return changes.filter((c) => {
    if (!PY_LOCKED_GROUPS.test(c.group)) return false;
    const specs = recorded.get(pep503(c.name));
    if (c.kind === 'added') return !specs;
    if (c.kind === 'removed') return specs !== undefined && specs.length > 0 && !changes.some((o) => o !== c && o.name === c.name);
    // Only where the base's specifier is written as the lockfile records it (so the two compare).
    return specs !== undefined && specs.includes(pySpec(c.before)) && !specs.includes(pySpec(c.after));
  });
};

const poetryLock: Lock['stale'] = (text, _rel, changes) => {
  // poetry.lock carries a hash of the pyproject's dependency declarations: any change of them makes
  // `poetry check --lock` (and `poetry install`) report the lockfile as out of date.
  if (!/^content-hash\s*=/m.test(text)) return null;
  return changes.filter((c) => c.group.startsWith('tool.poetry.') || PY_LOCKED_GROUPS.test(c.group));
};

/** A Cargo requirement as a semver range: a bare version means a caret requirement. */
function cargoRange(spec: string | undefined): string | null {
  if (!spec) return null;
  const s = spec.trim();
  const range = /^\d/.test(s) ? `^${s}` : s.replace(/,/g, ' ');
  return semver.validRange(range) ? range : null;
}

const cargoLock: Lock['stale'] = (text, _rel, changes) => {
  const doc: Record<string, unknown> = parseToml(text);
  const versions = new Map<string, string[]>();
  for (const p of Array.isArray(doc.package) ? doc.package : [])
    if (isRecord(p) && typeof p.name === 'string' && typeof p.version === 'string')
      versions.set(p.name, [...(versions.get(p.name) ?? []), p.version]);
  // `cargo --locked` refuses whenever the lockfile would have to change: a dependency with no locked
  // package, or a requirement no locked version meets. (A removed one may still be needed by another
  // crate of the graph: not judged.)
  return changes.filter((c) => {
    if (c.kind === 'removed' || c.group.startsWith('workspace.') || !c.after || /^(git|path) /.test(c.after) || c.after.startsWith('{'))
      return false;
    const locked = versions.get(c.name) ?? versions.get(c.name.replace(/_/g, '-')) ?? versions.get(c.name.replace(/-/g, '_'));
    if (!locked) return c.kind === 'added';
    const range = cargoRange(c.after);
    return range !== null && !locked.some((v) => semver.satisfies(v, range));
  });
};

const goSum: Lock['stale'] = (text, _rel, changes, manifest) => {
  const lines = new Set(text.split(/\r?\n/).map((l) => l.trim().split(/\s+/).slice(0, 2).join(' ')));
  // go build refuses a required module version whose go.sum entry is missing ("missing go.sum entry").
  return changes.filter((c) => {
    if (c.kind === 'removed' || !c.after) return false;
    if (new RegExp(`^\\s*(replace\\s+)?${c.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s+\\S+)?\\s+=>`, 'm').test(manifest))
      return false;
    return !lines.has(`${c.name} ${c.after}/go.mod`);
  });
};

const LOCKS: Lock[] = [
  {
    file: 'package-lock.json',
    manifest: 'package.json',
    workspace: true,
    refuses: '`npm ci`',
    fix: 'npm install',
    ciFrozen: /\bnpm\s+(ci|clean-install|install-clean)\b/,
    stale: npmLock,
  },
  {
    file: 'pnpm-lock.yaml',
    manifest: 'package.json',
    workspace: true,
    refuses: '`pnpm install --frozen-lockfile` (the default on CI)',
    fix: 'pnpm install',
    // pnpm installs with --frozen-lockfile by default when CI is set, as it is on every CI service.
    ciFrozen: /\bpnpm\s+(i|install)\b/,
    stale: pnpmLock,
  },
  {
    file: 'yarn.lock',
    manifest: 'package.json',
    workspace: true,
    refuses: '`yarn install --frozen-lockfile` / `--immutable` (yarn 2+ on CI by default)',
    fix: 'yarn install',
    ciFrozen: /--frozen-lockfile|--immutable\b/,
    stale: yarnLock,
  },
  {
    file: 'uv.lock',
    manifest: 'pyproject.toml',
    workspace: true,
    refuses: '`uv sync --locked`',
    fix: 'uv lock',
    ciFrozen: /\buv\s+(sync|lock|run|export)\b[^\n]*--locked\b/,
    stale: uvLock,
  },
  {
    file: 'poetry.lock',
    manifest: 'pyproject.toml',
    workspace: false,
    refuses: '`poetry check --lock`',
    fix: 'poetry lock',
    ciFrozen: /\bpoetry\s+(check\s+[^\n]*--lock|lock\s+[^\n]*--check)\b/,
    stale: poetryLock,
  },
  {
    file: 'Cargo.lock',
    manifest: 'Cargo.toml',
    workspace: true,
    refuses: '`cargo build --locked`',
    fix: 'cargo update --workspace',
    ciFrozen: /\bcargo\b[^\n]*\s--(locked|frozen)\b/,
    stale: cargoLock,
  },
  {
    file: 'go.sum',
    manifest: 'go.mod',
    workspace: false,
    refuses: '`go build` ("missing go.sum entry")',
    fix: 'go mod tidy',
    // Every go build refuses it (-mod=readonly is the default): no CI setting needed.
    ciFrozen: /[\s\S]/,
    stale: goSum,
  },
];

/** The CI files slopgate reads for install commands: workflows and GitLab CI, at the base (a PR cannot drop them). */
async function ciText(ctx: GuardContext): Promise<{ path: string; text: string }[]> {
  return ctx.memo('g1:ci-text', async () => {
    const paths = [...(await ctx.base.entries()).keys()].filter(
      (p) => /^\.github\/workflows\/[^/]+\.ya?ml$/i.test(p) || /^\.gitlab-ci\.ya?ml$/i.test(p),
    );
    const texts = await ctx.base.readTexts(paths.slice(0, 200));
    return [...texts].map(([path, text]) => ({ path, text }));
  });
}

/** Stale-lockfile findings for one changed manifest. */
export async function staleLockfileFindings(
  file: ChangedFile,
  changes: DependencyChange[] | null,
  all: ChangedFile[],
  ctx: GuardContext,
): Promise<GuardFinding[]> {
  if (!changes?.length || file.status !== 'modified' || file.head.text === null) return [];
  const manifestName = file.path.slice(file.path.lastIndexOf('/') + 1);
  const touched = new Set(all.flatMap((f) => [f.path, f.oldPath].filter((p): p is string => !!p)));
  const entries = await ctx.head.entries();
  const dir = dirnameOf(file.path);
  const out: GuardFinding[] = [];
  for (const lock of LOCKS.filter((l) => l.manifest.toLowerCase() === manifestName.toLowerCase())) {
    // The nearest lockfile of this tool: in the manifest's folder, or (workspaces) a parent folder.
    const parts = dir ? dir.split('/') : [];
    let lockPath: string | undefined;
    for (let i = parts.length; i >= 0; i--) {
      const candidate = [...parts.slice(0, i), lock.file].join('/');
      if (entries.has(candidate)) {
        lockPath = candidate;
        break;
      }
      if (!lock.workspace) break;
    }
    if (!lockPath || touched.has(lockPath)) continue;
    const lockText = await ctx.head.readText(lockPath);
    if (lockText === null) continue;
    const lockDir = dirnameOf(lockPath);
    const rel = lockDir === dir ? '' : dir.slice(lockDir ? lockDir.length + 1 : 0);
    let stale: DependencyChange[] | null;
    try {
      stale = lock.stale(lockText, rel, changes, file.head.text);
    } catch {
      stale = null; // a lockfile slopgate cannot read proves nothing
    }
    if (!stale?.length) continue;
    const ci = (await ciText(ctx)).find((w) => lock.ciFrozen.test(w.text));
    const always = lock.file === 'go.sum';
    const shown = stale.slice(0, 3).map(describeChange).join('; ');
    const more = stale.length > 3 ? ` and ${stale.length - 3} more` : '';
    const why = always
      ? `${lock.refuses} refuses it on every machine.`
      : ci
        ? `${lock.refuses} refuses it, and the project's CI installs that way (\`${ci.path}\`).`
        : `${lock.refuses} refuses it; this repository's CI does not visibly install in that mode, so an ordinary install would just rewrite the lockfile.`;
    out.push({
      category: 'lockfile-stale',
      severity: always || ci ? 'fail' : 'risk',
      path: file.path,
      ...(file.added[0] ? { line: file.added[0].start } : {}),
      message: `\`${file.path}\` ${shown}${more}, but \`${lockPath}\` is not part of the PR and does not match: ${why}`,
      remediation: `Run \`${lock.fix}\`${lockDir ? ` in \`${lockDir}\`` : ''} and commit the updated \`${lock.file}\` with the manifest.`,
      evidence: {
        lockfile: lockPath,
        tool: lock.file,
        frozenInCi: ci?.path ?? (always ? 'always' : null),
        stale: stale.slice(0, 20),
      } satisfies G1StaleLockfileEvidence,
    });
  }
  return out;
}
