import type { HostKind } from './host-kind.js';
import type { SlopgateConfig } from './config-schema.js';
import type { FindingInput } from './finding.js';
import type { ChangedFile, PatchSet } from './patch-set.js';
import type { Revision } from './revision.js';
import type { BaselineCache, FlakyMemory, HistoryReader, LinkChecker, RunIdentity, TestRunOptions } from './ports.js';
import type { ReportSections, SectionName } from './report-sections.js';
import type { Logger, TracePhase } from './trace.js';
import type { EvidenceSchema } from './evidence.js';

/** Everything a guard may look at. Guards never touch the network or the platform directly. */
export interface GuardContext {
  patch: PatchSet;
  config: SlopgateConfig;
  /** The merge-base tree (what the PR is compared against). */
  base: Revision;
  /** The PR head tree. */
  head: Revision;
  phase: TracePhase;
  log: Logger;
  /** Aborted when the guard's time budget runs out. */
  signal: AbortSignal;
  /** True when a G1 edit of `path` is sanctioned (config allow-list, label or `/slopgate allow`). */
  sanctioned(path: string): boolean;
  /** Computes a value once per run and shares it between guards (e.g. the repo fingerprint). */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** Adds a named section to the report (e.g. `psi`, `tests`, `links`). */
  section<K extends SectionName>(name: K, value: NonNullable<ReportSections[K]>): void;
  /**
   * Optional services the host provides (store, link checker, test runner options): the ones the guard
   * declares in {@link Guard.needs}; reading another throws (see gate/guard-services.ts).
   */
  services: GuardServices;
  /**
   * When the test suites are running: G8 says so as it starts them (or the pipeline, once G8 ends
   * without), and a guard with heavy work in this process (G16's tree export and tool runs) waits for
   * it, so that the suites start first. Absent in a guard thread, where nothing needs to wait.
   */
  suites?: SuitesUnderway;
}

/** See {@link GuardContext.suites}. */
export interface SuitesUnderway {
  underway: Promise<void>;
  started(): void;
}

/** A {@link SuitesUnderway} that says `started` once, whoever says it first. */
export function suitesUnderway(): SuitesUnderway {
  let started!: () => void;
  const underway = new Promise<void>((resolve) => (started = resolve));
  return { underway, started };
}

/** Host-provided ports; each is optional and a guard that needs a missing one skips or falls back. */
export interface GuardServices {
  /** Who is being gated (G8's cache key, G9's history lookup). */
  run?: RunIdentity;
  /** How G8 runs the tests for this run (`--no-tests`, the test-merge ref, build caches). */
  tests?: TestRunOptions;
  /** G8's baseline results, shared between runs (default: an in-process cache). */
  baselineCache?: BaselineCache;
  /** G9's failure history of earlier runs (the store). */
  history?: HistoryReader;
  /** G8's memory of tests that flipped on earlier runs (the store); without it no test is known flaky. */
  flaky?: FlakyMemory;
  /** G14's online link check (default: the shared HTTP checker). */
  linkChecker?: LinkChecker;
  /** The repository's display name (`owner/name`), one of the names G11 treats as the project's own. */
  repoName?: string;
  /** Which host runs the gate, so that advice in a finding names what it offers (G1's sanctions); absent: the App. */
  host?: HostKind;
}

/** The name of one run service (`GuardContext.services`). */
export type GuardServiceName = keyof GuardServices;

/**
 * What a guard needs from the run. The pipeline derives from it where the guard runs
 * (gate/thread-placement.ts) and hands it only the services it names (gate/guard-services.ts).
 */
export interface GuardNeeds {
  /**
   * Why the guard must run in the main process, when it must (it drives the sandbox, or waits for the
   * suites to start); absent, it may run in a guard thread, unless this run holds a service it names that
   * only this process can hold (an injected link checker, the store's history).
   */
  mainProcess?: string;
  /** The run services it reads. */
  services: readonly GuardServiceName[];
  /**
   * The sections of the config (src/core/config-schema.ts) that hold its options, besides `guards`, which
   * every guard reads; absent when it has none. test/guards/guard-folders.test.ts holds them to the schema.
   */
  config?: readonly GuardConfigSection[];
}

/** A top-level section of the config that a guard's options live in. */
export type GuardConfigSection = Exclude<keyof SlopgateConfig, 'guards'>;

/** A guard's findings before the pipeline adds ids, the guard id and commit attribution. */
export type GuardFinding = Omit<FindingInput, 'guard'> & { guard?: string };

export interface Guard {
  /** A registry id (src/core/guard-ids.ts: 'G1'…'G17', 'psi'), or a test's own. */
  id: string;
  /** Short human name for reports. */
  name: string;
  /**
   * Every shape of `evidence` this guard writes on a finding (declared in the guard's folder, `evidence.ts`);
   * empty when it writes none. `evidenceProblem` (core/evidence.ts) checks a finding against them.
   */
  evidence?: readonly EvidenceSchema[];

  /** Which changed files this guard looks at. */
  appliesTo(file: ChangedFile, ctx: GuardContext): boolean;
  /** Checks one file (called for every file it applies to). */
  checkFile?(file: ChangedFile, ctx: GuardContext): GuardFinding[] | Promise<GuardFinding[]>;
  /** Checks all of its files at once (for guards that compare files or aggregate). */
  checkAll?(files: ChangedFile[], ctx: GuardContext): GuardFinding[] | Promise<GuardFinding[]>;
  /** A reason to skip the guard entirely for this run (e.g. disabled by config), or null. */
  skipReason?(ctx: GuardContext): string | null | Promise<string | null>;
  /** Runs even when no changed file applies (e.g. history, tests). */
  runsWithoutFiles?: boolean;
  /**
   * Starts first and runs alongside the other guards: its time goes to waiting on child processes (G8's
   * sandboxed suites, G17's pyright), so the static guards fit in that wait instead of adding to it. A
   * function decides per change (G17 waits on pyright only for Python; its TypeScript half is CPU
   * work in the guard thread, which would hold up the guards beside it).
   */
  alongside?: boolean | ((patch: PatchSet) => boolean);
  /** Starts the test suites and says when (see {@link GuardContext.suites}); the pipeline says it for it once it ends. */
  startsSuites?: boolean;
  /** Time budget of this guard when it needs more than `guards.timeoutMs` (e.g. G8 runs test suites). */
  budgetMs?(ctx: GuardContext): number;
  /**
   * Where it may run and which run services it reads. Every registry guard declares it
   * (test/guards/guard-folders.test.ts); a guard without it is given every service and runs in this
   * process, or in a guard thread when it names a `workerModule`.
   */
  needs?: GuardNeeds;
  /**
   * URL of a module exporting this guard, for guards outside the registry that should run in a guard
   * thread (where the budget can stop synchronous code). Registry guards whose needs allow it run there
   * without it.
   */
  workerModule?: string;
}

/** Thrown by a guard's check to report the guard as skipped at run time, with the reason. */
export class GuardSkip extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'GuardSkip';
  }
}
