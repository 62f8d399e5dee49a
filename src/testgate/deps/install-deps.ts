import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { lstat, mkdir, readdir, realpath, rm, statfs, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { Revision } from '../../core/revision.js';
import {
  exportTreeRepo,
  writeSandboxGitConfig,
  runSandboxed,
  type SandboxResult,
  type SuiteLimits,
  tailOf,
  sandboxCapabilities,
} from '../../sandbox/index.js';
import { readCappedText } from '../../core/safe-read.js';
import { makeScratchDir, type ScratchDir } from '../../core/scratch.js';
import { vendoredSourceConfig } from './cargo-deps.js';
import { DepCache, depCacheOptionsFromEnv, ENTRY_CONTENT, type Built, type CacheScope, type EntryMeta } from './dep-cache.js';
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
import { registryEnvFor, skipDownloadEnvFor } from './registry-env.js';
import type { PlannedDeps } from './plan-dependencies.js';

const run = promisify(execFile);

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
  /** The cache entry the side used: shared (installed from a base) or its tree's own, and why. */
  entry?: EntryChoice;
}

export interface PreparedDeps {
  summary: DepsSummary;
  run: RunDeps;
  notes: string[];
  toolchain: Record<string, string>;
  /** Set when the install failed: what the installer said. */
  failure?: { message: string; tail: string; diskFull?: boolean };
}

/** Shell `export` lines for an install's environment (values may name `$TMPDIR`; none is secret). */
function exports(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([k, v]) => `export ${k}="${v.replace(/["\\`]/g, '\\$&')}"`)
    .join('; ');
}

/** An install's disk cap (tests.installDiskMb), MiB. */
const DEFAULT_INSTALL_DISK_MB = 4096;
/** The install's own /tmp and /dev/shm (tmpfs each, besides its TMPDIR inside the cap). */
const INSTALL_SHM_MB = 1024;
/** An install whose folder is this full when it failed ran out of room. */
const NEAR_FULL = 0.97;

/** A real folder (lstat: not a link to one). */
async function isRealDir(path: string): Promise<boolean> {
  const st = await lstat(path).catch(() => null);
  return st?.isDirectory() === true;
}

/**
 * Keeps only the install's outputs in `tree` (node_modules dirs, PnP files); returns their paths. The
 * tree is what the install left: links are removed or kept as links, never followed, and only a real
 * folder or a regular file can be an output (a test run mounts each one).
 */
async function keepNodeOutputs(tree: string): Promise<string[]> {
  const outputs: string[] = [];
  const walk = async (dir: string, depth: number): Promise<boolean> => {
    let keepAny = false;
    for (const name of await readdir(dir)) {
      const p = join(dir, name);
      const rel = relative(tree, p);
      const st = await lstat(p);
      const real = st.isDirectory() || st.isFile();
      if (name === 'node_modules' && st.isDirectory()) {
        outputs.push(rel);
        keepAny = true;
        continue;
      }
      if (PNP_OUTPUTS.includes(rel) && real) {
        outputs.push(rel);
        keepAny = true;
        continue;
      }
      if (st.isDirectory() && depth < 8 && (await walk(p, depth + 1))) {
        keepAny = true;
        continue;
      }
      await rm(p, { recursive: true, force: true });
    }
    return keepAny;
  };
  await walk(tree, 0);
  for (const o of outputs.filter((x) => x.endsWith('node_modules'))) {
    for (const c of NODE_MODULES_CACHES) {
      const p = join(tree, o, c);
      if (!(await isRealDir(p))) await rm(p, { recursive: true, force: true });
      await mkdir(p).catch(() => undefined);
    }
  }
  return outputs.sort();
}

/**
 * What a suite run mounts from an entry. Each folder it binds is checked to be itself (no link on its
 * way): bubblewrap follows a link given as a bind's source, which would mount a host file.
 */
async function runDepsOf(plan: DepsPlan | NoInstall, meta: EntryMeta | null, dir: string | null): Promise<RunDeps> {
  const env = { ...plan.runEnv };
  if (!meta || !dir || !('ecosystem' in plan)) return { ...NO_RUN_DEPS, env };
  const content = join(dir, ENTRY_CONTENT);
  const host = (plan.hostPaths ?? []).map((p) => ({ src: p, dest: p }));
  const unlinked = async (src: string) => {
    if ((await realpath(src)) !== src) throw new Error(`the cached dependencies hold a link at ${src}; the entry is not used`);
    return src;
  };
  if (meta.ecosystem === 'npm' || meta.ecosystem === 'pnpm' || meta.ecosystem === 'yarn') {
    return {
      binds: await Promise.all(meta.outputs.map(async (o) => ({ src: await unlinked(join(content, 'tree', o)), dest: o }))),
      tmpfs: meta.outputs.filter((o) => o.endsWith('node_modules')).flatMap((o) => NODE_MODULES_CACHES.map((c) => `${o}/${c}`)),
      env,
      path: [],
    };
  }
  return {
    binds: [...host, { src: await unlinked(content), dest: DEPS_MOUNT }],
    tmpfs: [],
    env,
    path: plan.runPath ?? [],
    ...(meta.cargoConfig ? { cargoConfig: meta.cargoConfig } : {}),
    ...(plan.prepare ? { prepare: plan.prepare } : {}),
    ...(meta.ecosystem === 'python' ? { pythonLayer: true } : {}),
  };
}

type InstallRun = { ok: true; result: SandboxResult; diskFull: boolean } | { ok: false; error: string };

/**
 * The folder one install runs in, nothing shared: its content (bound at {@link DEPS_MOUNT}, what
 * becomes the cache entry), HOME, TMPDIR and caches. Where slopgate may mount, it is a tmpfs capped
 * at tests.installDiskMb; elsewhere a watchdog measures it and stops the install at the cap. The folder
 * is `root/` in a scratch folder (core/scratch.ts): an interrupted install's is unmounted and removed.
 */
class InstallRoot {
  private constructor(
    private readonly scratch: ScratchDir,
    readonly dir: string,
    readonly capMb: number,
  ) {}

  private get mounted(): boolean {
    return this.scratch.mounted;
  }

  static async create(capMb: number): Promise<InstallRoot> {
    const scratch = await makeScratchDir('install');
    const root = new InstallRoot(scratch, join(scratch.path, 'root'), capMb);
    try {
      if (sandboxCapabilities().tmpfsMount) await scratch.mountTmpfs('root', 'slopgate-install', capMb * 1024 * 1024);
      else await mkdir(root.dir, { mode: 0o700 });
      await Promise.all(['home', 'tmp', 'cache', ENTRY_CONTENT].map((d) => mkdir(join(root.dir, d))));
    } catch (err) {
      await root.release();
      throw err;
    }
    return root;
  }

  get content(): string {
    return join(this.dir, ENTRY_CONTENT);
  }

  /** Whether the install used (nearly) all of its cap. */
  async full(): Promise<boolean> {
    return (await this.usedMb()) >= NEAR_FULL * this.capMb;
  }

  async usedMb(): Promise<number> {
    if (this.mounted) {
      const s = await statfs(this.dir).catch(() => null);
      return s ? ((s.blocks - s.bfree) * s.bsize) / (1024 * 1024) : 0;
    }
    const { stdout } = await run('du', ['-sk', this.dir], { maxBuffer: 1024 * 1024 }).catch(() => ({ stdout: '0' }));
    return Number(stdout.split('\t')[0]) / 1024;
  }

  /** Without a tmpfs of its own: aborts `controller` once the folder holds more than the cap. */
  watch(controller: AbortController): () => void {
    if (this.mounted) return () => undefined;
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void this.usedMb()
        .then((mb) => {
          if (mb >= this.capMb) controller.abort();
        })
        .finally(() => (busy = false));
    }, 2000);
    return () => clearInterval(timer);
  }

  async release(): Promise<void> {
    if (!this.mounted) await run('chmod', ['-R', 'u+w', '--', this.dir]).catch(() => undefined);
    await this.scratch.remove();
  }
}

async function runInstall(plan: DepsPlan, root: InstallRoot, sha: string, ctx: DepsContext): Promise<InstallRun> {
  const tree = join(root.content, 'tree');
  await mkdir(tree);
  await exportTreeRepo(ctx.repoDir, sha, tree);
  for (const f of plan.files ?? []) await writeFile(join(root.content, f.path), f.content);
  const egress = await ctx.egress();
  if (!egress)
    return {
      ok: false,
      error: 'network for dependency installs is off on this machine (SLOPGATE_EGRESS=off), and nothing is cached for these dependencies',
    };
  await writeSandboxGitConfig(join(root.dir, 'home'));
  const env = { ...registryEnvFor(plan.ecosystem), ...skipDownloadEnvFor(plan.ecosystem), ...plan.env };
  const cap = new AbortController();
  const stopWatching = root.watch(cap);
  try {
    const result = await runSandboxed({
      command: `set -e\n${exports(env)}\n${plan.script}`,
      cwd: INSTALL_TREE,
      home: join(root.dir, 'home'),
      tmp: join(root.dir, 'tmp'),
      cacheDir: join(root.dir, 'cache'),
      writable: [root.dir],
      binds: [...(plan.hostPaths ?? []).map((p) => ({ src: p, dest: p })), { src: root.content, dest: DEPS_MOUNT, writable: true }],
      egress,
      timeoutMs: Math.max(ctx.limits.timeoutSec, 900) * 1000,
      memoryMb: Math.max(ctx.limits.memoryMb, 4096),
      maxProcesses: Math.max(ctx.limits.maxProcesses, 512),
      diskMb: Math.min(root.capMb, INSTALL_SHM_MB),
      ...(ctx.limits.isolation ? { isolation: ctx.limits.isolation } : {}),
      signal: ctx.signal ? AbortSignal.any([ctx.signal, cap.signal]) : cap.signal,
    });
    // A full folder fails the install whatever its exit code: an installer or a script that swallowed ENOSPC left it incomplete.
    const diskFull = cap.signal.aborted || (await root.full());
    return { ok: true, result, diskFull };
  } finally {
    stopWatching();
  }
}

/** Runs the install of `plan` on `rev` in a folder of its own and reads what it produced as data. */
async function install(plan: DepsPlan, rev: Revision, ctx: DepsContext): Promise<{ built: Built; release: () => Promise<void> }> {
  const capMb = ctx.limits.installDiskMb ?? DEFAULT_INSTALL_DISK_MB;
  const root = await InstallRoot.create(capMb);
  const fail = (error: string, tail = '', diskFull = false): { built: Built; release: () => Promise<void> } => ({
    built: { ok: false, error, tail, ...(diskFull ? { diskFull } : {}) },
    release: () => root.release(),
  });
  try {
    const refusedBefore = ctx.refusals?.().length ?? 0;
    const r = await runInstall(plan, root, rev.sha, ctx);
    if (!r.ok) return fail(r.error);
    const res = r.result;
    if (r.diskFull)
      return fail(
        `the dependency install filled its disk (tests.installDiskMb, ${capMb} MiB)`,
        tailOf(`${res.stdout}\n${res.stderr}`.trim()),
        true,
      );
    if (res.refused || res.killedBy || res.exitCode !== 0) {
      const tail = tailOf(`${res.stdout}\n${res.stderr}`.trim());
      return fail(installFailureSummary(plan.ecosystem, res, tail, ctx.refusals?.() ?? []), tail);
    }
    const tree = join(root.content, 'tree');
    let outputs: string[] = [];
    let cargoConfig: string | undefined;
    if (plan.ecosystem === 'npm' || plan.ecosystem === 'pnpm' || plan.ecosystem === 'yarn') outputs = await keepNodeOutputs(tree);
    else await rm(tree, { recursive: true, force: true });
    if (plan.ecosystem === 'cargo') {
      // What cargo printed is the install's output: read as data (no link followed), and only a source replacement is kept.
      try {
        cargoConfig = vendoredSourceConfig(await readCappedText(join(root.content, 'cargo-config.toml'), 1024 * 1024));
      } catch (err) {
        return fail(`the source replacement cargo vendor printed was refused: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
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
    return {
      built: { ok: true, content: root.content, outputs, notes, toolchain, ...(cargoConfig ? { cargoConfig } : {}) },
      release: () => root.release(),
    };
  } catch (err) {
    await root.release();
    throw err;
  }
}

/**
 * The key of the entry a side uses: in the shared scope, the dependency key (plus the tree when the
 * install runs the tree's code); in a tree's own scope, always the dependency key and the tree.
 */
async function entryKey(planned: PlannedDeps & { plan: DepsPlan; key: string }, scope: CacheScope): Promise<string> {
  if (scope === 'shared' && !planned.plan.projectCode) return planned.key;
  const tree = await planned.rev.treeId();
  return `${planned.plan.ecosystem}-${createHash('sha256').update(`${planned.key}\0tree\0${tree}`).digest('hex').slice(0, 32)}`;
}

/** Which entry a side uses, and why: what the report says. */
export interface EntryChoice {
  scope: CacheScope;
  why: string;
}

/**
 * Makes the dependencies of one tree available to its suite runs: from the cache when an entry with
 * the same key exists in `choice.scope` (steady state: nothing is installed), else by running the
 * ecosystem's installer in the sandbox with network only through the egress proxy.
 */
export async function installDependencies(planned: PlannedDeps, ctx: DepsContext, choice: EntryChoice): Promise<PreparedDeps> {
  const { plan, key, rev } = planned;
  if (!plan) return { summary: { status: 'none', reason: 'no dependency manifest' }, run: NO_RUN_DEPS, notes: [], toolchain: {} };
  if (!('ecosystem' in plan) || !key) {
    return {
      summary: { status: 'none', reason: 'none' in plan ? plan.none : 'nothing to install' },
      run: await runDepsOf(plan, null, null),
      notes: plan.notes ?? [],
      toolchain: plan.toolchain ?? {},
    };
  }
  const used = await entryKey({ rev, plan, key }, choice.scope);
  const base = { ecosystem: plan.ecosystem, key: used, inputs: plan.inputs, entry: choice };
  const outcome = await ctx.cache.getOrBuild(choice.scope, used, { ecosystem: plan.ecosystem, build: () => install(plan, rev, ctx) });
  if (!outcome.ok) {
    return {
      summary: { ...base, status: 'failed', reason: outcome.error },
      run: NO_RUN_DEPS,
      notes: plan.notes,
      toolchain: plan.toolchain,
      failure: { message: outcome.error, tail: outcome.tail, ...(outcome.diskFull ? { diskFull: true } : {}) },
    };
  }
  return {
    summary: { ...base, status: outcome.cached ? 'cached' : 'installed', installMs: outcome.meta.installMs },
    run: await runDepsOf(plan, outcome.meta, outcome.dir),
    notes: [...plan.notes, ...outcome.meta.notes],
    toolchain: { ...plan.toolchain, ...outcome.meta.toolchain },
  };
}

/** The machine's dependency cache, as slopgate's environment names it now. */
export function sharedDepCache(): DepCache {
  return new DepCache(depCacheOptionsFromEnv());
}
