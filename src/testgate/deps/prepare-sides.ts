import { installEgress } from './default-egress.js';
import { preparedRunDeps } from './prepared-env.js';
import type { EgressPort } from '../../core/ports.js';
import { Revision } from '../../core/revision.js';
import { git } from '../../core/git.js';
import type { RunnerId } from '../../core/suite-result.js';
import type { SuiteLimits } from '../run-suite.js';
import type { DepCache } from './dep-cache.js';
import { NO_RUN_DEPS, type RunDeps } from './deps-plan.js';
import {
  installDependencies,
  planDependencies,
  sharedDepCache,
  type DepsContext,
  type DepsSummary,
  type PlannedDeps,
  type PreparedDeps,
} from './install-deps.js';

/**
 * The dependency stage of one gate run: plan the base and the candidate (cheap: reads the trees),
 * then install what is not cached — the base only when its suite must run, the candidate only when
 * its dependency files differ from the base's (same key, same entry). An install that fails at the
 * base makes G8 skip with the installer's words; one that fails only at the candidate is the change's
 * doing (a version that does not exist, a conflict, a host the proxy refuses) — unless the installer
 * says the registry or the network failed: then it is retried once, and an outage that persists stops
 * the gate as not about the code.
 */

export type EgressHandle = EgressPort;

export interface DepsOptions {
  cache?: DepCache;
  /** Starts the egress proxy for installs; null when install network is off. */
  egress?: () => Promise<EgressHandle | null>;
  /**
   * A CI workspace whose dependencies the workflow installed before slopgate ran (the Action): a
   * side whose dependency files are the workspace's uses them read-only instead of installing.
   */
  prepared?: { workspace: string };
}

interface GateLike {
  repoDir: string;
  base: Revision;
  candidateSha: string;
  config: SuiteLimits & { install?: 'auto' | 'off' };
  deps?: DepsOptions;
  signal?: AbortSignal;
}

export interface SideDeps {
  base: DepsSummary;
  head: DepsSummary;
  /** Tool versions used (interpreter, compiler, package manager). */
  toolchain: Record<string, string>;
}

export interface PreparedSides {
  base: RunDeps;
  head: RunDeps;
  summary: SideDeps;
  notes: string[];
  /** Why the base could not get its dependencies (G8 skips). */
  baseFailure?: string;
  /** The candidate could not get its dependencies although the base could. */
  headFailure?: { message: string; culprits: string[]; output: string };
  /** An install failed for reasons that are not the project's or the change's (registry, network). */
  baseOutage?: string;
  headOutage?: string;
}

/** What installers print when the registry or the network failed, not the request. */
const OUTAGE =
  /ETIMEDOUT|ECONNRESET|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|socket hang up|network (?:is )?unreachable|Read timed out|timed out|Connection (?:reset|aborted)|connection broken by|RemoteDisconnected|Max retries exceeded|TLS handshake timeout|temporarily unavailable|\b50[0234]\b|Service Unavailable|Bad Gateway|Gateway Time-?out|Too Many Requests|\b429\b/i;

/** A failure is an outage when the installer says the registry or the network failed, and the proxy refused nothing on purpose. */
function isOutage(f: { message: string; tail: string }): boolean {
  return OUTAGE.test(`${f.message}\n${f.tail}`) && !f.message.includes('egress proxy refused');
}

export interface SidesPlan {
  /** Part of the baseline cache key: a baseline ran with these dependencies. */
  baseKey: string | undefined;
  /** The base and the head have the same dependencies (one set serves both, whether the base runs or not). */
  sameDeps: boolean;
  prepare(needBase: boolean): Promise<PreparedSides>;
}

async function changedPaths(repoDir: string, base: string, head: string): Promise<Set<string>> {
  const out = await git(repoDir, ['diff', '--name-only', '-z', '--no-renames', base, head]).catch(() => '');
  return new Set(out.split('\0').filter(Boolean));
}

export async function planSides(opts: GateLike, runner: RunnerId): Promise<SidesPlan> {
  const off = opts.config.install === 'off';
  const offSummary: DepsSummary = { status: 'off', reason: 'tests.install: off' };
  if (off) {
    return {
      baseKey: undefined,
      sameDeps: true,
      prepare: () =>
        Promise.resolve({
          base: NO_RUN_DEPS,
          head: NO_RUN_DEPS,
          summary: { base: offSummary, head: offSummary, toolchain: {} },
          notes: [],
        }),
    };
  }
  const [basePlan, headPlan] = await Promise.all([
    planDependencies(opts.base, runner),
    planDependencies(new Revision(opts.repoDir, opts.candidateSha), runner, opts.base),
  ]);
  const prepared = opts.deps?.prepared;
  const workspaceKey = prepared
    ? (await planDependencies(new Revision(prepared.workspace, 'HEAD'), runner).catch(() => null))?.key
    : undefined;
  return {
    baseKey: basePlan.key,
    sameDeps: basePlan.key === headPlan.key,
    prepare: (needBase) => prepareBoth(opts, basePlan, headPlan, needBase, workspaceKey),
  };
}

/** A side that uses the workflow's prepared environment: no install. */
async function fromWorkflow(plan: PlannedDeps, workspace: string): Promise<PreparedDeps | null> {
  if (!plan.plan || !('ecosystem' in plan.plan)) return null;
  const eco = plan.plan.ecosystem;
  const run = await preparedRunDeps(eco, workspace);
  if (!run) return null;
  return {
    summary: {
      status: 'prepared',
      ecosystem: eco,
      ...(plan.key ? { key: plan.key } : {}),
      reason: 'installed by the workflow before slopgate ran',
    },
    run,
    notes: [],
    toolchain: plan.plan.toolchain,
  };
}

async function prepareBoth(
  opts: GateLike,
  basePlan: PlannedDeps,
  headPlan: PlannedDeps,
  needBase: boolean,
  workspaceKey: string | undefined,
): Promise<PreparedSides> {
  // Objects, so that the checks after the closures are not narrowed to the initial null.
  const egress: { started: Promise<EgressHandle | null> | null; handle: EgressHandle | null } = { started: null, handle: null };
  const workspace = opts.deps?.prepared?.workspace;
  const install = async (plan: PlannedDeps, c: DepsContext): Promise<PreparedDeps> =>
    (workspace && plan.key !== undefined && plan.key === workspaceKey ? await fromWorkflow(plan, workspace) : null) ??
    installDependencies(plan, c);
  const ctx = {
    repoDir: opts.repoDir,
    cache: opts.deps?.cache ?? sharedDepCache(),
    egress: () =>
      (egress.started ??= (opts.deps?.egress?.() ?? installEgress()).then((h) => {
        egress.handle = h;
        return h;
      })),
    refusals: () => (egress.handle?.refusals() ?? []).map((r) => `${r.host}:${r.port} (${r.reason})`),
    limits: opts.config,
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  try {
    // What the proxy refused during an install is in that entry's notes (install-deps.ts).
    return await installBoth(opts, basePlan, headPlan, needBase, { ...ctx, install });
  } finally {
    await (await egress.started)?.close();
  }
}

async function installBoth(
  opts: GateLike,
  basePlan: PlannedDeps,
  headPlan: PlannedDeps,
  needBase: boolean,
  ctx: DepsContext & { install: (plan: PlannedDeps, c: DepsContext) => Promise<PreparedDeps> },
): Promise<PreparedSides> {
  const sameKey = basePlan.key === headPlan.key;
  const notNeeded: PreparedDeps = {
    summary: { status: 'none', reason: 'the baseline is cached' },
    run: NO_RUN_DEPS,
    notes: [],
    toolchain: {},
  };
  const base = needBase || sameKey ? await ctx.install(basePlan, ctx) : notNeeded;
  let head = sameKey ? base : await ctx.install(headPlan, ctx);
  const notes = [...new Set([...head.notes, ...base.notes])];
  const summary = (): SideDeps => ({ base: base.summary, head: head.summary, toolchain: { ...base.toolchain, ...head.toolchain } });
  if (base.failure && isOutage(base.failure)) {
    return {
      base: NO_RUN_DEPS,
      head: NO_RUN_DEPS,
      summary: summary(),
      notes,
      baseOutage: `the package registry or the network failed while the base's dependencies were installed: ${base.failure.message}`,
    };
  }
  if (base.failure) {
    return {
      base: NO_RUN_DEPS,
      head: NO_RUN_DEPS,
      summary: summary(),
      notes,
      baseFailure: `the project's dependencies could not be installed at the base: ${base.failure.message}`,
    };
  }
  // One more try when the registry or the network failed: registries have bad minutes.
  if (head.failure && isOutage(head.failure)) head = await ctx.install(headPlan, ctx);
  if (!head.failure) return { base: base.run, head: head.run, summary: summary(), notes };
  if (isOutage(head.failure)) {
    return {
      base: base.run,
      head: NO_RUN_DEPS,
      summary: summary(),
      notes,
      headOutage: `the package registry or the network failed while this change's dependencies were installed: ${head.failure.message}`,
    };
  }
  const changed = await changedPaths(opts.repoDir, opts.base.sha, opts.candidateSha);
  const culprits = (head.summary.inputs ?? []).filter((p) => changed.has(p));
  return {
    base: base.run,
    head: NO_RUN_DEPS,
    summary: summary(),
    notes,
    headFailure: { message: head.failure.message, culprits, output: head.failure.tail.slice(-2000) },
  };
}
