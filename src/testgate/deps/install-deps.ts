import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { Revision } from '../../core/revision.js';
import type { RunnerId } from '../../core/suite-result.js';
import { exportTreeRepo } from '../export-tree.js';
import { writeSandboxGitConfig } from '../tree-repo.js';
import { runSandboxed, type SandboxResult } from '../sandbox.js';
import type { SuiteLimits } from '../run-suite.js';
import { tailOf } from '../capped-output.js';
import { planCargo } from './cargo-deps.js';
import { DepCache, depCacheOptionsFromEnv, type EntryMeta } from './dep-cache.js';
import {
  DEPS_MOUNT,
  INSTALL_TREE,
  NODE_MODULES_CACHES,
  NO_RUN_DEPS,
  type DepsPlan,
  type Ecosystem,
  type NoInstall,
  type RunDeps,
} from './deps-plan.js';
import { installFailureSummary } from './install-failure.js';
import { planGo } from './go-deps.js';
import { planMaven } from './maven-deps.js';
import { planNpm } from './npm-deps.js';
import { planPython } from './python-deps.js';
import { operatorRegistryEnv } from './registry-env.js';
import { toolVersion } from './toolchains.js';

const run = promisify(execFile);

/** Bump when what an entry holds changes shape: older entries are then simply not found. */
const PLAN_VERSION = 1;

/** Yarn Plug'n'Play's install output, kept like node_modules. */
const PNP_OUTPUTS = ['.pnp.cjs', '.pnp.loader.mjs', '.pnp.js', '.yarn/cache', '.yarn/unplugged', '.yarn/install-state.gz'];

export interface DepsContext {
  repoDir: string;
  cache: DepCache;
  /** The egress proxy's socket, started on first need; null when the operator turned install network off. */
  egress: () => Promise<{ socketPath: string } | null>;
  /** Refusals the proxy recorded (for naming a host the install was not allowed to reach). */
  refusals?: () => string[];
  limits: SuiteLimits;
  signal?: AbortSignal;
}

/** What the report says about one side's dependencies. */
export interface DepsSummary {
  status: 'installed' | 'cached' | 'prepared' | 'none' | 'failed' | 'off';
  ecosystem?: Ecosystem;
  /** Cache key (ecosystem and hash). */
  key?: string;
  installMs?: number;
  reason?: string;
  /** Files that decide the install; on failure, the culprits are those of them the PR changed. */
  inputs?: string[];
}

export interface PreparedDeps {
  summary: DepsSummary;
  run: RunDeps;
  notes: string[];
  toolchain: Record<string, string>;
  /** Set when the install failed: what the installer said. */
  failure?: { message: string; tail: string };
}

/**
 * The machine's toolchain versions, each asked once per process and only when an ecosystem that
 * needs it is planned: a Python project does not wait for `rustc --version` (rustup's proxy alone
 * took 0.4–1.2 s of every run's planning).
 */
const versions = new Map<string, Promise<unknown>>();
function once<T>(name: string, ask: () => Promise<T>): Promise<T> {
  let p = versions.get(name) as Promise<T> | undefined;
  if (!p) {
    p = ask();
    versions.set(name, p);
  }
  return p;
}
const nodeVersion = () => once('node', () => toolVersion('node'));
const goVersion = () => once('go', () => toolVersion('go', ['version']));
const rustcVersion = () => once('rustc', () => toolVersion('rustc'));
const rustToolchains = () =>
  once('rustup', () =>
    run('rustup', ['toolchain', 'list'], { timeout: 20_000 }).then(
      (r) => r.stdout.split('\n').filter((l) => l.trim()),
      () => [] as string[],
    ),
  );

/** The ecosystem whose dependencies a runner needs (a custom command: the first manifest of the tree). */
async function planFor(rev: Revision, runner: RunnerId, floor?: Revision): Promise<DepsPlan | NoInstall | null> {
  const node = async () => {
    const v = await nodeVersion();
    return v ? planNpm(rev, v, floor) : { none: 'node is not installed on this machine' };
  };
  const python = () => planPython(rev, floor);
  const go = async () => {
    const v = await goVersion();
    return v ? planGo(rev, v) : { none: 'go is not installed on this machine' };
  };
  const cargo = async () => {
    const [rustc, list] = await Promise.all([rustcVersion(), rustToolchains()]);
    return rustc ? planCargo(rev, rustc, list) : { none: 'cargo is not installed on this machine' };
  };
  switch (runner) {
    case 'pytest':
      return python();
    case 'go':
      return go();
    case 'cargo':
      return cargo();
    case 'maven':
      return planMaven(rev);
    case 'custom': {
      if (await rev.has('package.json')) return node();
      if (await rev.has('go.mod')) return go();
      if (await rev.has('Cargo.toml')) return cargo();
      if (await rev.has('pom.xml')) return planMaven(rev);
      const paths = await rev.paths();
      if (paths.some((p) => /^(pyproject\.toml|setup\.py|setup\.cfg|requirements[^/]*\.txt)$/.test(p))) return python();
      return null;
    }
    default:
      return node();
  }
}

function cacheKey(plan: DepsPlan): string {
  const h = createHash('sha256');
  h.update(
    `v${PLAN_VERSION}\0${plan.ecosystem}\0${process.platform}-${process.arch}\0${JSON.stringify(operatorRegistryEnv())}\0${plan.script}\0`,
  );
  h.update(plan.keyMaterial);
  return `${plan.ecosystem}-${h.digest('hex').slice(0, 32)}`;
}

/** Shell `export` lines for an install's environment (values may name `$TMPDIR`). */
function exports(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([k, v]) => `export ${k}="${v.replace(/["\\`]/g, '\\$&')}"`)
    .join('; ');
}

/** Keeps only the install's outputs in `tree` (node_modules dirs, PnP files); returns their paths. */
async function keepNodeOutputs(tree: string): Promise<string[]> {
  const outputs: string[] = [];
  const walk = async (dir: string, depth: number): Promise<boolean> => {
    let keepAny = false;
    for (const name of await readdir(dir)) {
      const p = join(dir, name);
      const rel = relative(tree, p);
      const st = await lstat(p);
      if (name === 'node_modules' && st.isDirectory()) {
        outputs.push(rel);
        keepAny = true;
        continue;
      }
      if (PNP_OUTPUTS.includes(rel)) {
        outputs.push(rel);
        keepAny = true;
        continue;
      }
      if (st.isDirectory() && !st.isSymbolicLink() && depth < 8 && (await walk(p, depth + 1))) {
        keepAny = true;
        continue;
      }
      await rm(p, { recursive: true, force: true });
    }
    return keepAny;
  };
  await walk(tree, 0);
  for (const o of outputs.filter((x) => x.endsWith('node_modules')))
    for (const c of NODE_MODULES_CACHES) await mkdir(join(tree, o, c), { recursive: true }).catch(() => undefined);
  return outputs.sort();
}

/** What a suite run mounts from an entry. */
function runDepsOf(plan: DepsPlan | NoInstall, meta: EntryMeta | null, dir: string | null): RunDeps {
  const env = { ...plan.runEnv };
  if (!meta || !dir || !('ecosystem' in plan)) return { ...NO_RUN_DEPS, env };
  const host = (plan.hostPaths ?? []).map((p) => ({ src: p, dest: p }));
  if (meta.ecosystem === 'npm' || meta.ecosystem === 'pnpm' || meta.ecosystem === 'yarn') {
    return {
      binds: meta.outputs.map((o) => ({ src: join(dir, 'tree', o), dest: o })),
      tmpfs: meta.outputs.filter((o) => o.endsWith('node_modules')).flatMap((o) => NODE_MODULES_CACHES.map((c) => `${o}/${c}`)),
      env,
      path: [],
    };
  }
  return {
    binds: [...host, { src: dir, dest: DEPS_MOUNT }],
    tmpfs: [],
    env,
    path: plan.runPath ?? [],
    ...(meta.cargoConfig ? { cargoConfig: meta.cargoConfig } : {}),
  };
}

type InstallRun = { ok: true; result: SandboxResult } | { ok: false; error: string };

async function runInstall(plan: DepsPlan, staging: string, sha: string, ctx: DepsContext): Promise<InstallRun> {
  const tree = join(staging, 'tree');
  await mkdir(tree, { recursive: true });
  await exportTreeRepo(ctx.repoDir, sha, tree);
  for (const f of plan.files ?? []) await writeFile(join(staging, f.path), f.content);
  const egress = await ctx.egress();
  if (!egress)
    return {
      ok: false,
      error: 'network for dependency installs is off on this machine (SLOPGATE_EGRESS=off), and nothing is cached for these dependencies',
    };
  const root = await mkdtemp(join(tmpdir(), 'slopgate-install-'));
  try {
    await Promise.all(['home', 'tmp', 'cache'].map((d) => mkdir(join(root, d))));
    await writeSandboxGitConfig(join(root, 'home'));
    const env = { ...operatorRegistryEnv(), ...plan.env };
    const result = await runSandboxed({
      command: `set -e\n${exports(env)}\n${plan.script}`,
      cwd: INSTALL_TREE,
      home: join(root, 'home'),
      tmp: join(root, 'tmp'),
      cacheDir: join(root, 'cache'),
      writable: [root],
      binds: [...(plan.hostPaths ?? []).map((p) => ({ src: p, dest: p })), { src: staging, dest: DEPS_MOUNT, writable: true }],
      egress,
      timeoutMs: Math.max(ctx.limits.timeoutSec, 900) * 1000,
      memoryMb: Math.max(ctx.limits.memoryMb, 4096),
      maxProcesses: Math.max(ctx.limits.maxProcesses, 512),
      diskMb: ctx.limits.diskMb ?? 2048,
      ...(ctx.limits.isolation ? { isolation: ctx.limits.isolation } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    return { ok: true, result };
  } finally {
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** A tree's dependency plan and its cache key, before anything is installed. */
export interface PlannedDeps {
  rev: Revision;
  plan: DepsPlan | NoInstall | null;
  key?: string;
}

/** `floor`: the base, when `rev` is a PR's side (see resolveAsOf). */
export async function planDependencies(rev: Revision, runner: RunnerId, floor?: Revision): Promise<PlannedDeps> {
  const plan = await planFor(rev, runner, floor);
  return { rev, plan, ...(plan && 'ecosystem' in plan ? { key: cacheKey(plan) } : {}) };
}

/**
 * Makes the dependencies of one tree available to its suite runs: from the cache when an entry with
 * the same key exists (steady state: nothing is installed), else by running the ecosystem's installer
 * in the sandbox with network only through the egress proxy.
 */
export async function installDependencies(planned: PlannedDeps, ctx: DepsContext): Promise<PreparedDeps> {
  const { plan, key, rev } = planned;
  if (!plan) return { summary: { status: 'none', reason: 'no dependency manifest' }, run: NO_RUN_DEPS, notes: [], toolchain: {} };
  if (!('ecosystem' in plan) || !key) {
    return {
      summary: { status: 'none', reason: 'none' in plan ? plan.none : 'nothing to install' },
      run: runDepsOf(plan, null, null),
      notes: plan.notes ?? [],
      toolchain: plan.toolchain ?? {},
    };
  }
  const base = { ecosystem: plan.ecosystem, key, inputs: plan.inputs };
  const outcome = await ctx.cache.getOrBuild(key, {
    ecosystem: plan.ecosystem,
    build: async (staging) => {
      const refusedBefore = ctx.refusals?.().length ?? 0;
      const r = await runInstall(plan, staging, rev.sha, ctx);
      if (!r.ok) return { ok: false, error: r.error, tail: '' };
      const res = r.result;
      if (res.refused || res.killedBy || res.exitCode !== 0) {
        const tail = tailOf(`${res.stdout}\n${res.stderr}`.trim());
        return { ok: false, error: installFailureSummary(plan.ecosystem, res, tail, ctx.refusals?.() ?? []), tail };
      }
      const tree = join(staging, 'tree');
      let outputs: string[] = [];
      let cargoConfig: string | undefined;
      if (plan.ecosystem === 'npm' || plan.ecosystem === 'pnpm' || plan.ecosystem === 'yarn') outputs = await keepNodeOutputs(tree);
      else await rm(tree, { recursive: true, force: true });
      if (plan.ecosystem === 'cargo') cargoConfig = await readFile(join(staging, 'cargo-config.toml'), 'utf8');
      // The script's last line is the tool's version (`go version`, `pytest --version`).
      const printed = /(\d+\.\d+\.\d+)/.exec(res.stdout.trim().split('\n').at(-1) ?? '')?.[1];
      const toolchain = { ...plan.toolchain };
      if (printed && plan.ecosystem === 'go') toolchain.go = printed;
      if (printed && plan.ecosystem === 'python') toolchain.pytest = printed;
      if (printed && plan.ecosystem === 'maven') toolchain.maven = printed;
      // What the proxy refused belongs to the entry: whoever uses it (G8, or a guard that got there first) reports it.
      const refused = ctx.refusals?.().slice(refusedBefore) ?? [];
      const notes = refused.length
        ? [`the egress proxy refused what the dependency install tried to reach: ${refused.slice(0, 5).join('; ')}`]
        : [];
      return { ok: true, outputs, notes, toolchain, ...(cargoConfig ? { cargoConfig } : {}) };
    },
  });
  if (!outcome.ok) {
    return {
      summary: { ...base, status: 'failed', reason: outcome.error },
      run: NO_RUN_DEPS,
      notes: plan.notes,
      toolchain: plan.toolchain,
      failure: { message: outcome.error, tail: outcome.tail },
    };
  }
  return {
    summary: { ...base, status: outcome.cached ? 'cached' : 'installed', installMs: outcome.meta.installMs },
    run: runDepsOf(plan, outcome.meta, outcome.dir),
    notes: [...plan.notes, ...outcome.meta.notes],
    toolchain: { ...plan.toolchain, ...outcome.meta.toolchain },
  };
}

/** The machine's dependency cache, as slopgate's environment names it now. */
export function sharedDepCache(): DepCache {
  return new DepCache(depCacheOptionsFromEnv());
}
