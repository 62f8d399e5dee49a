import { installEgress } from './default-egress.js';
import { preparedRunDeps } from './prepared-env.js';
import type { EgressPort } from '../../core/ports.js';
import { Revision } from '../../core/revision.js';
import { git } from '../../core/git.js';
import { findCiBuildStep } from '../ci-build-step.js';
import type { RunnerId } from '../../core/suite-result.js';
import type { SuiteLimits } from '../../sandbox/index.js';
import type { DepCache } from './dep-cache.js';
import { NO_RUN_DEPS, type RunDeps } from './deps-plan.js';
import {
  installDependencies,
  sharedDepCache,
  type DepsContext,
  type DepsSummary,
  type EntryChoice,
  type PreparedDeps,
} from './install-deps.js';
import { planDependencies, type PlannedDeps } from './plan-dependencies.js';

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
  /** The candidate's install filled tests.installDiskMb where the base's fit: the gate stops, blaming neither. */
  headLimit?: string;
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
  /**
   * The head runs on the base's entry: the same dependency files, and an install that runs none of
   * the tree's own code (one set serves both, whether the base runs or not).
   */
  sameDeps: boolean;
  prepare(needBase: boolean): Promise<PreparedSides>;
}

const SHARED_WHY = 'shared: installed from the base, a commit the repository holds';

/** Whether the head may run on the base's install, and the words for the head's choice either way. */
function headChoice(basePlan: PlannedDeps, headPlan: PlannedDeps): { reuse: boolean; why: string } {
  const projectCode = headPlan.plan && 'ecosystem' in headPlan.plan ? headPlan.plan.projectCode : undefined;
  if (basePlan.key === headPlan.key && !projectCode)
    return { reuse: true, why: "the base's entry: the same dependency files, and the install runs none of the tree's own code" };
  if (basePlan.key === headPlan.key)
    return { reuse: false, why: `its own: ${projectCode ?? "the install runs the tree's code"}, so the install must see this tree` };
  return {
    reuse: false,
    why: "its own: its dependency files differ from the base's, and an install of a pull request's tree serves that tree alone",
  };
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
  const eco = basePlan.plan && 'ecosystem' in basePlan.plan ? basePlan.plan.ecosystem : null;
  const node = eco === 'npm' || eco === 'pnpm' || eco === 'yarn' || (eco === null && (await opts.base.has('package.json')));
  const build = node ? await findCiBuildStep(opts.base) : null;
  return {
    baseKey: basePlan.key,
    sameDeps: headChoice(basePlan, headPlan).reuse,
    prepare: async (needBase) => {
      const sides = await prepareBoth(opts, basePlan, headPlan, needBase, workspaceKey);
      if (!build) return sides;
      // Both trees are built the way CI builds before its tests (the base's workflow decides, for both).
      const step = { command: build, what: `the build CI runs before the tests (${build})` };
      const built = (run: RunDeps): RunDeps => (run.prepare ? run : { ...run, prepare: step });
      return {
        ...sides,
        base: built(sides.base),
        head: built(sides.head),
        notes: [...sides.notes, `CI runs \`${build}\` before its tests: each side's tree was built that way first`],
      };
    },
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

/** The tree id of the workflow's checkout (its HEAD), or null. */
async function workspaceTree(workspace: string): Promise<string | null> {
  return (await git(workspace, ['rev-parse', 'HEAD^{tree}']).catch(() => '')).trim() || null;
}

async function prepareBoth(
  opts: GateLike,
  basePlan: PlannedDeps,
  headPlan: PlannedDeps,
  needBase: boolean,
  workspaceKey: string | undefined,
): Promise<PreparedSides> {
  const workspace = opts.deps?.prepared?.workspace;
  const cache = opts.deps?.cache ?? sharedDepCache();
  // The workflow's install ran the checkout's code: where the install runs the tree's code, it serves only that very tree.
  const fromCheckout = async (plan: PlannedDeps): Promise<PreparedDeps | null> => {
    if (!workspace || plan.key === undefined || plan.key !== workspaceKey) return null;
    const projectCode = plan.plan && 'ecosystem' in plan.plan ? plan.plan.projectCode : undefined;
    if (projectCode && (await workspaceTree(workspace)) !== (await plan.rev.treeId())) return null;
    return fromWorkflow(plan, workspace);
  };
  // Each side's install has an egress proxy of its own: one side cannot use up the other's connections.
  const install = async (plan: PlannedDeps, choice: EntryChoice): Promise<PreparedDeps> => {
    const prepared = await fromCheckout(plan);
    if (prepared) return prepared;
    const egress: { started: Promise<EgressHandle | null> | null; handle: EgressHandle | null } = { started: null, handle: null };
    const ctx: DepsContext = {
      repoDir: opts.repoDir,
      cache,
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
      return await installDependencies(plan, ctx, choice);
    } finally {
      await (await egress.started)?.close();
    }
  };
  return installBoth(opts, basePlan, headPlan, needBase, install);
}

async function installBoth(
  opts: GateLike,
  basePlan: PlannedDeps,
  headPlan: PlannedDeps,
  needBase: boolean,
  install: (plan: PlannedDeps, choice: EntryChoice) => Promise<PreparedDeps>,
): Promise<PreparedSides> {
  const choice = headChoice(basePlan, headPlan);
  const notNeeded: PreparedDeps = {
    summary: { status: 'none', reason: 'the baseline is cached' },
    run: NO_RUN_DEPS,
    notes: [],
    toolchain: {},
  };
  const headInstall = (): Promise<PreparedDeps> => install(headPlan, { scope: 'tree', why: choice.why });
  const base = needBase || choice.reuse ? await install(basePlan, { scope: 'shared', why: SHARED_WHY }) : notNeeded;
  let head = choice.reuse
    ? { ...base, summary: { ...base.summary, ...(base.summary.entry ? { entry: { scope: 'shared' as const, why: choice.why } } : {}) } }
    : await headInstall();
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
  if (head.failure && isOutage(head.failure)) head = await headInstall();
  if (!head.failure) return { base: base.run, head: head.run, summary: summary(), notes };
  if (head.failure.diskFull) {
    // The base's install fit: whether the change needs more room or fills it on purpose, the cap decides, not the code.
    return { base: base.run, head: NO_RUN_DEPS, summary: summary(), notes, headLimit: head.failure.message };
  }
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
