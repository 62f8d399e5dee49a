import type { SuiteResult } from './suite-result.js';

/**
 * The ports a host may plug into a run (`GuardContext.services`). Each guard names the ones it reads in
 * its `needs` (core/guard.ts) and is handed only those; the implementations live above core (the store,
 * the link checker, the baseline caches), and a guard whose port is missing skips or falls back, never
 * guesses.
 */

/** A changed path that failed guards in enough separate runs of the same repo recently. */
export interface Hotspot {
  path: string;
  /** Separate failing runs in the window; runs of the same commit count once. */
  runs: number;
  /** Failing findings on the path across those runs. */
  failures: number;
  /** Guard ids and categories that failed, most frequent first. */
  guards: string[];
  categories: string[];
  /** The newest failing runs (up to 5), newest first. */
  lastRuns: { runId: string; pr: number | null; headSha: string; at: string }[];
  lastFailedAt: string;
}

/** What not to count: the run being gated, re-runs of its commit and, optionally, its own PR. */
export interface HistoryExclusions {
  runId?: string;
  headSha?: string;
  pr?: number;
  /** The clock (tests); defaults to now. */
  now?: Date;
}

/** One refine attempt as history keeps it: what the report's `refine` section shows, and the head it refined. */
export interface RefineAttemptRecord {
  n: number;
  round: number;
  /** A recipe id, or `model:<name>`. */
  source: string;
  outcome: string;
  paths: string[];
  reason?: string;
  tokens: { prompt: number; completion: number };
  headSha: string;
}

/** G9's port to earlier runs (the store implements it; the refiner reads it too). */
export interface HistoryReader {
  hotspots(repo: string, paths: string[], windowDays: number, threshold: number, exclude?: HistoryExclusions): Promise<Hotspot[]>;
  /**
   * A PR's refine attempts (the repository's attempts made without a PR when `pr` is null), oldest first.
   * Optional: a history without refine attempts leaves it out and G9 shows none.
   */
  listRefineAttempts?(repo: string, pr: number | null, limit?: number): Promise<RefineAttemptRecord[]>;
}

/** Who is being gated, for services that look at history (`ctx.services.run`). */
export interface RunIdentity {
  /** `owner/name` (or the CLI's repository name). */
  repo: string;
  pr?: number;
  runId?: string;
  /** The PR author's login as the host reports it (`dependabot[bot]`); G1 treats dependency bots' manifest edits as routine. */
  author?: string;
}

/**
 * What an external URL turned out to be. Only `dead` is reported: NXDOMAIN, or a definitive
 * 404/410. Everything uncertain (timeouts, TLS errors, 5xx, 403, 429 …) is `unknown`; URLs the
 * checker refuses to fetch (internal hosts, private addresses) are `skipped`.
 */
export interface LinkVerdict {
  status: 'ok' | 'dead' | 'unknown' | 'skipped';
  reason: string;
  httpStatus?: number;
}

/** G14's port to the web (`repo/link-checker.ts` has the HTTP implementation; tests inject their own). */
export interface LinkChecker {
  check(url: string): Promise<LinkVerdict>;
}

/**
 * What a baseline (the suite run at a PR's base) depends on. Two PRs on the same base tree with the
 * same runner command and lockfiles share one baseline run.
 */
export interface BaselineKey {
  /** Repository name, e.g. `owner/name` (or the directory for the CLI). */
  repo: string;
  /** Git tree id of the base commit (not the commit id: a rebase that keeps the tree keeps the cache). */
  baseTree: string;
  /** The runner command as configured / detected. */
  command: string;
  /** Hash of the base tree's lockfiles (package-lock.json, Cargo.lock, go.sum, poetry.lock, …). */
  lockfileHash: string;
}

/** Storage of baseline suite results. The store provides a PostgreSQL-backed implementation. */
export interface BaselineCache {
  get(key: BaselineKey): Promise<SuiteResult | null>;
  put(key: BaselineKey, result: SuiteResult): Promise<void>;
}

/** The host's options for G8's test run (`ctx.services.tests`). */
export interface TestRunOptions {
  /** false: skip G8 for this run (the CLI's `--no-tests`). */
  enabled?: boolean;
  /** The test-merge commit (GitHub's `refs/pull/N/merge`), judged instead of the head when given. */
  mergeRef?: string;
  /** Repository name for the baseline cache key (default: the repository directory). */
  repo?: string;
  /** Directory for per-repo build caches of the sandbox. */
  cacheDir?: string;
  /**
   * A CI workspace whose dependencies the workflow installed before slopgate ran (the Action): the
   * test runs use them read-only when the dependency files match, instead of installing.
   */
  prepared?: { workspace: string };
  /**
   * Where dependency installs reach the network (default: slopgate's egress proxy with the registry
   * allow-list). Tests plug in a proxy of their own; null means no network for installs.
   */
  installEgress?: () => Promise<EgressPort | null>;
  /** Says what slow work is under way (installing dependencies, running the suite at base and head): the CLI's progress line. */
  progress?: (text: string) => void;
  /**
   * A named stage that runs beside others starts (the install, the base suite, the head suite, a project
   * tool); the returned function ends it. The CLI's progress line names what runs by it.
   */
  stage?: (name: string) => () => void;
}

/** An egress proxy as the dependency installs use it: its unix socket, what it refused, and closing it. */
export interface EgressPort {
  socketPath: string;
  refusals(): { host: string; port: number; reason: string }[];
  close(): Promise<void>;
}

/** How to tell a known-flaky test (`tests.flaky` of the config, and who is asking). */
export interface FlakyLookup {
  /** Different PRs a test must have flipped on in the window (a flip on a base is enough alone). */
  prs: number;
  windowDays: number;
  /** The PR being gated: its own flips do not count. */
  excludePr?: number;
  now?: Date;
}

/** A test the flaky memory knows to flip: on a base, or on `prs` (sorted) different PRs. */
export interface KnownFlakyTest {
  test: string;
  basis: 'base' | 'prs';
  prs: number[];
  flips: number;
  /** ISO time of the newest flip. */
  lastAt: string;
}

/** G8's port to the flaky memory across PRs (the store implements it; `ctx.services.flaky`). */
export interface FlakyMemory {
  knownFlaky(repo: string, testIds: string[], lookup: FlakyLookup): Promise<KnownFlakyTest[]>;
}
