import { parse as parseJsonc } from 'jsonc-parser';
import picomatch from 'picomatch';
import { parse as parseYaml } from 'yaml';
import semver from 'semver';
import { isRecord } from '../../core/is-record.js';
import type { Revision } from '../../core/revision.js';
import type { DepsPlan, Ecosystem, NoInstall } from './deps-plan.js';
import { resolveAsOf } from './as-of.js';

/**
 * npm, pnpm and yarn projects: the package manager the repository uses (its `packageManager` field,
 * else its lockfile), installed from the lockfile (`npm ci`, `pnpm install --frozen-lockfile`,
 * `yarn install --frozen-lockfile` / `--immutable`; pnpm and yarn through corepack), workspaces
 * included. Install scripts run: the install is PR code and runs in the sandbox like the tests.
 */

/** package.json fields that change what an install produces. */
const INSTALL_FIELDS = [
  'name',
  'dependencies',
  'devDependencies',
  'optionalDependencies',
  'peerDependencies',
  'bundleDependencies',
  'bundledDependencies',
  'overrides',
  'resolutions',
  'pnpm',
  'workspaces',
  'packageManager',
  'engines',
];
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];
/** Config files that change how the package manager installs (hoisting, linker, registries). */
const PM_CONFIG = ['.npmrc', '.yarnrc', '.yarnrc.yml', 'pnpm-workspace.yaml', '.pnpmfile.cjs'];

/** Dependency fields whose specs may name a folder of the tree (`file:`, `link:`, a relative path). */
const DEP_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
const LOCAL_SPEC = /^(?:file:|link:|portal:|\.{1,2}\/|\/|~\/)/;
/** `.npmrc` keys that change only how packages are resolved or laid out, never what runs. */
const NPMRC_INERT = new Set([
  'registry',
  'engine-strict',
  'save-exact',
  'save-prefix',
  'legacy-peer-deps',
  'strict-peer-dependencies',
  'auto-install-peers',
  'shamefully-hoist',
  'public-hoist-pattern',
  'hoist-pattern',
  'hoist',
  'node-linker',
  'package-lock',
  'lockfile',
  'fund',
  'audit',
  'loglevel',
  'progress',
  'prefer-offline',
  'prefer-frozen-lockfile',
  'link-workspace-packages',
  'prefer-workspace-packages',
  'resolution-mode',
  'dedupe-peer-dependents',
  'strict-ssl',
  'git-checks',
  'update-notifier',
  'fetch-retries',
  'fetch-timeout',
  'save',
  'optional',
  'include-workspace-root',
  'recursive-install',
  'enable-pre-post-scripts',
  'manage-package-manager-versions',
  'ignore-scripts',
]);

/**
 * Why installing this tree runs code of the tree itself (its own lifecycle scripts, a native addon's
 * build, a package from one of its folders, a pnpm hook, a yarn release or plugin it carries, an
 * `.npmrc` that points npm at a file), or null when the install runs only what the lockfile names.
 * Such an install's result may depend on any file of the tree, so it serves that tree alone.
 */
function projectCodeOf(
  manifests: [string, Record<string, unknown> | null][],
  paths: Set<string>,
  configs: Map<string, string>,
): string | null {
  for (const [path, pkg] of manifests) {
    if (!pkg) continue;
    const scripts = isRecord(pkg.scripts) ? pkg.scripts : {};
    const script = [...INSTALL_SCRIPTS, 'preprepare', 'postprepare'].find((s) => typeof scripts[s] === 'string');
    if (script) return `${path} has a ${script} script`;
    const dir = path.slice(0, -'package.json'.length);
    if (paths.has(`${dir}binding.gyp`)) return `${dir}binding.gyp builds a native addon`;
    for (const f of DEP_FIELDS) {
      const deps = isRecord(pkg[f]) ? pkg[f] : {};
      const local = Object.entries(deps).find(([, spec]) => typeof spec === 'string' && LOCAL_SPEC.test(spec));
      if (local) return `${path} takes ${local[0]} from a folder of the repository (${String(local[1])})`;
    }
  }
  if (configs.has('.pnpmfile.cjs')) return '.pnpmfile.cjs hooks into the install';
  const yarnrc = configs.get('.yarnrc.yml');
  if (yarnrc && /^\s*(yarnPath|plugins)\s*:/m.test(yarnrc)) return '.yarnrc.yml runs a yarn release or plugins the repository carries';
  const npmrc = configs.get('.npmrc');
  if (npmrc) {
    for (const line of npmrc.split('\n')) {
      const key = /^\s*([^#;=\s][^=]*?)\s*=/.exec(line)?.[1];
      if (key && !NPMRC_INERT.has(key) && !/^@[^:]+:registry$/.test(key)) return `.npmrc sets ${key}`;
    }
  }
  return null;
}

function readJson(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const v: unknown = parseJsonc(text);
  return isRecord(v) ? v : null;
}

function installRelevant(pkg: Record<string, unknown>): string {
  const picked: Record<string, unknown> = {};
  for (const f of INSTALL_FIELDS) if (f in pkg) picked[f] = pkg[f];
  const scripts = isRecord(pkg.scripts) ? pkg.scripts : {};
  for (const s of INSTALL_SCRIPTS) if (s in scripts) picked[`scripts.${s}`] = scripts[s];
  return JSON.stringify(picked);
}

/** Workspace globs from package.json (`workspaces` or `workspaces.packages`) or pnpm-workspace.yaml. */
export function workspaceGlobs(pkg: Record<string, unknown>, pnpmWorkspace: string | null): string[] {
  const ws = pkg.workspaces;
  const fromPkg = Array.isArray(ws) ? ws : isRecord(ws) && Array.isArray(ws.packages) ? ws.packages : [];
  let fromPnpm: unknown[] = [];
  if (pnpmWorkspace) {
    try {
      const doc: unknown = parseYaml(pnpmWorkspace);
      if (isRecord(doc) && Array.isArray(doc.packages)) fromPnpm = doc.packages;
    } catch {
      // An unreadable pnpm-workspace.yaml: pnpm itself will say so when it installs.
    }
  }
  return [...(fromPkg as unknown[]), ...fromPnpm].filter((g): g is string => typeof g === 'string');
}

export function detectPackageManager(
  pkg: Record<string, unknown>,
  paths: Set<string>,
): { pm: Ecosystem; version?: string; lockfile?: string; bunLock?: string } {
  const declared = typeof pkg.packageManager === 'string' ? /^(npm|pnpm|yarn|bun)@([^+\s]+)/.exec(pkg.packageManager) : null;
  const lockOf: Record<string, string | undefined> = {
    pnpm: paths.has('pnpm-lock.yaml') ? 'pnpm-lock.yaml' : undefined,
    yarn: paths.has('yarn.lock') ? 'yarn.lock' : undefined,
    npm: paths.has('package-lock.json') ? 'package-lock.json' : paths.has('npm-shrinkwrap.json') ? 'npm-shrinkwrap.json' : undefined,
    bun: paths.has('bun.lockb') ? 'bun.lockb' : paths.has('bun.lock') ? 'bun.lock' : undefined,
  };
  const name = declared?.[1] ?? (['pnpm', 'yarn', 'npm', 'bun'] as const).find((m) => lockOf[m]) ?? 'npm';
  // bun's lockfile is not read: npm installs from package.json's ranges instead (said in the notes).
  if (name === 'bun') return { pm: 'npm', bunLock: lockOf.bun ?? 'packageManager: bun' };
  const pm = name as Ecosystem; // cast: one of npm, pnpm, yarn (bun returned above)
  const lockfile = lockOf[name];
  return { pm, ...(declared?.[2] ? { version: declared[2] } : {}), ...(lockfile ? { lockfile } : {}) };
}

function isYarnBerry(lockText: string | null, version: string | undefined): boolean {
  if (version) return !version.startsWith('1.');
  return lockText?.includes('__metadata:') ?? false;
}

function installScript(pm: Ecosystem, lockfile: string | undefined, berry: boolean): { script: string; notes: string[] } {
  const notes: string[] = [];
  if (!lockfile)
    notes.push(
      `no lockfile: dependencies were installed from the version ranges in package.json, so they may differ from what the project's CI installs`,
    );
  switch (pm) {
    case 'pnpm':
      return {
        script: `corepack pnpm install ${lockfile ? '--frozen-lockfile' : '--no-frozen-lockfile'} --config.confirmModulesPurge=false --store-dir "$TMPDIR/pnpm-store"`,
        notes,
      };
    case 'yarn':
      return berry
        ? { script: `corepack yarn install ${lockfile ? '--immutable' : ''}`.trim(), notes }
        : { script: `corepack yarn install ${lockfile ? '--frozen-lockfile' : '--no-lockfile'} --non-interactive --ignore-engines`, notes };
    default:
      return { script: lockfile ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund --no-package-lock', notes };
  }
}

/** The install plan of a Node project, or why there is nothing to install. */
export async function planNpm(rev: Revision, nodeVersion: string, floor?: Revision): Promise<DepsPlan | NoInstall | null> {
  const pkg = readJson(await rev.readText('package.json'));
  if (!pkg) return null;
  const paths = new Set(await rev.paths());
  const detected = detectPackageManager(pkg, paths);
  const { pm, lockfile } = detected;
  const pnpmWorkspace = await rev.readText('pnpm-workspace.yaml');
  const globs = workspaceGlobs(pkg, pnpmWorkspace);
  const isMember = globs.length ? picomatch(globs.map((g) => `${g.replace(/\/+$/, '')}/package.json`)) : () => false;
  const members = [...paths]
    .filter((p) => p !== 'package.json' && !p.includes('node_modules/') && p.endsWith('/package.json') && isMember(p))
    .sort();
  const allDeps = [pkg, ...(await Promise.all(members.map(async (m) => readJson(await rev.readText(m)))))];
  const hasDeps = allDeps.some(
    (p) => p && ['dependencies', 'devDependencies', 'optionalDependencies'].some((f) => isRecord(p[f]) && Object.keys(p[f]).length > 0),
  );
  if (!hasDeps) return { none: 'package.json declares no dependencies' };

  const lockText = lockfile ? await rev.readText(lockfile) : null;
  const berry = pm === 'yarn' && isYarnBerry(lockText, detected.version);
  const configs = PM_CONFIG.filter((c) => paths.has(c));
  const key = [`pm=${pm}@${detected.version ?? ''}`, `node=${nodeVersion}`, `lock=${lockfile ?? ''}:${lockText ?? ''}`];
  key.push(`package.json:${installRelevant(pkg)}`);
  for (const [i, m] of members.entries()) key.push(`${m}:${allDeps[i + 1] ? installRelevant(allDeps[i + 1]!) : ''}`);
  const configTexts = new Map<string, string>();
  for (const c of configs) configTexts.set(c, (await rev.readText(c)) ?? '');
  for (const [c, t] of configTexts) key.push(`${c}:${t}`);
  const projectCode = projectCodeOf(
    [['package.json', pkg], ...members.map((m, i): [string, Record<string, unknown> | null] => [m, allDeps[i + 1] ?? null])],
    paths,
    configTexts,
  );

  // The script (part of the cache key) carries the date.
  const asOf = lockfile ? null : await resolveAsOf(rev, floor);
  const installed = installScript(pm, lockfile, berry);
  const notes = installed.notes;
  // npm can resolve ranges as of a date; an old commit without a lockfile gets the versions of its day.
  const script = asOf && pm === 'npm' ? `${installed.script} --before=${asOf}` : installed.script;
  if (asOf && pm === 'npm') notes.push(`the versions are those published by ${asOf.slice(0, 10)} (the commit's date)`);
  if (detected.bunLock)
    notes.push(`the project uses bun (${detected.bunLock}), which is not installed here: npm installed from package.json's ranges instead`);
  if (lockfile && lockText === null) notes.push(`${lockfile} could not be read as text; the key uses its presence only`);
  const engines = isRecord(pkg.engines) && typeof pkg.engines.node === 'string' ? pkg.engines.node : null;
  if (engines && semver.validRange(engines) && !semver.satisfies(nodeVersion, engines)) {
    notes.push(`package.json asks for node ${engines}; the sandbox has node ${nodeVersion} (the tests ran with it)`);
  }
  return {
    ecosystem: pm,
    keyMaterial: key.join('\n'),
    inputs: ['package.json', ...(lockfile ? [lockfile] : []), ...members, ...configs],
    ...(projectCode ? { projectCode } : {}),
    script,
    env: {
      COREPACK_ENABLE_DOWNLOAD_PROMPT: '0',
      COREPACK_ENABLE_STRICT: '0',
      // corepack 0.34 cannot verify the registry's newer signing keys; the sandbox is what contains the download.
      COREPACK_INTEGRITY_KEYS: '0',
      COREPACK_HOME: '$TMPDIR/corepack',
      npm_config_offline: 'false',
      YARN_ENABLE_GLOBAL_CACHE: 'false',
      YARN_ENABLE_TELEMETRY: '0',
      HUSKY: '0',
    },
    notes,
    toolchain: { node: nodeVersion, [pm]: detected.version ?? (pm === 'npm' ? 'bundled with node' : 'corepack default') },
  };
}
