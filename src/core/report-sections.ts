import type { Severity } from './finding.js';
import type { OmegaComponents } from './psi.js';

/**
 * The sections guards and phases add to a report (`GuardContext.section`), one typed entry per name.
 * Reporters read these shapes; a report read back from storage may miss any of them.
 */

export interface PsiFileScore {
  path: string;
  psi: number;
  gamma: number;
  omega: number;
  components: OmegaComponents;
  gammaEvidence: string[];
}

/** Ψ-lite (written by the psi guard): the weakest file's score and every file's terms. */
export interface PsiSection {
  score: number;
  weakestFile: string | null;
  threshold: number;
  alpha: number;
  lambda: number;
  files: PsiFileScore[];
}

/** One side (base or candidate) of the test gate's run. */
export interface TestSideSummary {
  sha: string;
  status: string;
  failing: number;
  broken: number;
  total: number;
  durationMs: number;
  skipped?: string;
  /** This side ran and produced no test results: why (the cause read from its output, or its last lines). */
  failure?: string;
}

export interface SandboxIsolation {
  /** `bwrap` when the command ran in the sandbox; `none` when it ran without (best-effort only). */
  sandbox: 'bwrap' | 'none';
  /**
   * `isolated`: no network but the sandbox's own loopback; `egress-proxy`: only allow-listed registry
   * hosts through slopgate's egress proxy; `not-isolated`: no sandbox. `allowed` (the host's whole
   * network) is only found in reports written before the egress proxy existed.
   */
  network: 'isolated' | 'egress-proxy' | 'allowed' | 'not-isolated';
  pidNamespace: boolean;
  seccomp: boolean;
  processLimit: 'cgroup' | 'rlimit+watchdog' | 'watchdog';
  memoryLimit: 'cgroup' | 'rlimit';
  /** tmpfs: the run's tree is a size-capped tmpfs; per-file: only RLIMIT_FSIZE (slopgate is not root). */
  disk: 'tmpfs' | 'per-file';
  /** Why the sandbox could not be used (best-effort runs only). */
  unavailable?: string;
}

/** The test gate (written by G8). Test ids are listed, not counted. */
export interface TestsSection {
  runner?: string;
  /** The project's own test command, as its CI or a developer runs it (what the report shows). */
  command?: string;
  /** The exact command the sandbox ran, with slopgate's wrapping (report files, import path). */
  internalCommand?: string;
  baseline?: TestSideSummary & { cached: boolean };
  candidate?: TestSideSummary;
  regressions: string[];
  brokenUnits: string[];
  suiteBroken: boolean;
  fixed: string[];
  removed: string[];
  flaky: string[];
  /** Newly failing tests the flaky memory knows to flip (on a base, or on other PRs): reported, not blocking. */
  knownFlaky?: string[];
  /** Newly failing tests listed in tests.quarantine: reported, not blocking. */
  quarantined?: string[];
  /** The gate skipped itself (no runner, refused sandbox, …): why. */
  skipped?: string;
  /** `skipped` because no test setup was found (or every affected package was turned off): nothing was expected to run. */
  noSetup?: boolean;
  /** Per changed file that a test unit holds (a Go package, a test module): whether that unit ran at the base and the head. */
  files?: FileTestCoverage[];
  /** System packages the project's CI installs (apt-get lines in its workflows) that this machine lacks. */
  systemPackagesMissing?: string[];
  /** The tests were not run (stopped, budget): why. */
  notRun?: string;
  configChanges?: string[];
  notes?: string[];
  sandbox?: SandboxIsolation;
  /** With tests.network: what the egress proxy refused (`host:port: reason`). */
  egressRefused?: string[];
  /** With tests.network: the registry hosts reached, with the bytes they carried. */
  egressUsed?: string[];
  /** What the dependency stage did at each side (installed, cached, none, failed, off) and with which ecosystem. */
  dependencies?: { base: DependencyStage; head: DependencyStage };
  /** Tool versions the suites ran with (`python`, `pytest`, `node`, `go`, `rustc`, …). */
  toolchain?: Record<string, string>;
  /** In a monorepo: the workspace and each package whose suite the change made run (the fields above sum them up). */
  workspace?: WorkspaceTests;
}

/** The test gate in a monorepo: which packages ran and how each fared. */
export interface WorkspaceTests {
  kind: string;
  /** Where the packages are listed (`package.json workspaces`, `go.work`, …). */
  source: string;
  /** Packages in the workspace. */
  total: number;
  /** Non-doc files outside every package the change edits: every package ran because of them. */
  shared?: string[];
  /** The root's own command ran as well (an affected package, or a changed file outside every package, has no suite of its own). */
  rootRan?: boolean;
  packages: PackageTests[];
}

export interface PackageTests {
  name: string;
  dir: string;
  /**
   * changed: the change edits it; dependent: it depends on a changed package; shared: a file outside every
   * package changed; root: the root's own command (`.`), run because an affected package has no suite of
   * its own or a file outside every package changed.
   */
  reason: 'changed' | 'dependent' | 'shared' | 'root';
  /** For a dependent: the changed packages it depends on. */
  via?: string[];
  runner?: string;
  command?: string;
  baseline?: TestSideSummary & { cached: boolean };
  candidate?: TestSideSummary;
  regressions: string[];
  brokenUnits: string[];
  suiteBroken: boolean;
  flaky: string[];
  skipped?: string;
  /** Skipped because its folder has no test setup of its own. */
  noSetup?: boolean;
  notRun?: string;
}

/** Whether the test unit that holds a changed file ran at both sides. */
export interface FileTestCoverage {
  path: string;
  /** `ran`: its unit built and ran at the base and the head; `not-run`: it did not build or run at either side. */
  status: 'ran' | 'not-run';
  /** The unit, and why it did not run. */
  reason: string;
}

/** One side of the dependency stage. */
export interface DependencyStage {
  status: 'installed' | 'cached' | 'prepared' | 'none' | 'failed' | 'off';
  ecosystem?: string;
  key?: string;
  installMs?: number;
  reason?: string;
  inputs?: string[];
  /** The cache entry the side used: `shared` (installed from a base revision) or its tree's own, and why. */
  entry?: { scope: 'shared' | 'tree'; why: string };
}

/** G14's link check: offline counts local links only; online also checks external URLs. */
export type LinksSection =
  | { mode: 'offline'; localChecked: number; externalSkipped: number }
  | { mode: 'online'; localChecked: number; external: number; ok: number; dead: number; unknown: number; skipped: number };

/** G9's look at the failure history. */
export interface HistorySection {
  windowDays: number;
  threshold: number;
  includeOwnPr: boolean;
  checked: number;
  hotspots: { path: string; runs: number; failures: number }[];
}

/** One G1 finding a sanction (config allow-list, label, `/slopgate allow`) let through. */
export interface SanctionRecord {
  path: string;
  category: string;
  /** What the finding would have said. */
  finding: string;
  /** Which sanction allowed it. */
  allowedBy: string;
}

/** G1 findings let through by sanctions, and what the run has to say about the PR's sanctions. */
export interface SanctionsSection {
  guard: 'G1';
  allowed: SanctionRecord[];
  /** Which sanctions of the PR apply, which lapsed because the file changed since, which are ignored (Markdown, escaped). */
  notes?: string[];
}

/** The Q&A phase: its rendered answer, a crash, or why it did not run. */
export type QaSection =
  | { status: 'ran'; markdown: string; handled: number; gap: number; uncertain: number }
  | { status: 'crashed' | 'not-run'; reason: string; handled: number; gap: number; uncertain: number };

/** One refine attempt as the report shows it (G9 fills the section from the store). */
export interface RefineRowView {
  n: number;
  round?: number;
  source: string;
  outcome: string;
  paths: string[];
  reason?: string;
}

/** The refine attempts of this PR: at most 10 rows, with totals. */
export interface RefineView {
  attempts: RefineRowView[];
  kept: number;
  reverted: number;
  tokens: number;
}

/** One check G16 found the project enforcing (or the universal convention), and what became of it. */
export interface ProjectCheckRecord {
  /** `gofmt`, `rustfmt`, `ruff-check`, … */
  tool: string;
  /** Where the project asks for it (`.github/workflows/ci.yml: gofmt -l .`), or `convention`. */
  source: string;
  /** What a finding of it weighs: `fail` where CI runs it as a check, else `risk`. */
  severity: 'fail' | 'risk';
  /** `partial`: it ran on only part of the files (a cap); never a pass. */
  status: 'ran' | 'partial' | 'skipped';
  /** Changed files it applied to. */
  files: number;
  /** Why it was skipped. */
  reason?: string;
  /** How many findings its run raised, by severity (a check that ran and found nothing has all zero). */
  found?: { fail: number; risk: number; nit: number };
}

/** G16: the project's own checks on the changed files. */
export interface ProjectChecksSection {
  checks: ProjectCheckRecord[];
}

/** A finding of the previous gated head that this head no longer has, kept small (its report is not at hand). */
export interface GoneFinding {
  /** Its id at the previous head. */
  id: string;
  guard: string;
  category: string;
  severity: Severity;
  path?: string;
  /** Its line at the previous head (not at this one). */
  line?: number;
  /** The first line of its message. */
  message: string;
  /**
   * `fixed`: the push removed it. `base`: the PR was rebased and no longer changes the finding's file
   * against the new merge-base (the base branch took the change, or it went with the rebase).
   */
  gone: 'fixed' | 'base';
}

/** One finding of this head that the previous gated head had too. */
export interface StillOpenFinding {
  /** Its id at this head. */
  id: string;
  /** The ids it had at earlier gated heads (it moved, or a line was rewritten in place), newest first. */
  was: string[];
}

/** What changed since the previous gated head of the same PR (see core/since-push.ts). */
export interface SincePushSection {
  previous: { headSha: string; mergeBase: string };
  /** `descendant`: the new head builds on the previous one; `rewritten`: a force-push or rebase replaced it. */
  history: 'descendant' | 'rewritten';
  /** The merge-base this head is compared against is not the previous one (rebased, or the base branch merged in). */
  mergeBaseMoved: boolean;
  /** How lines were carried over: through the diff of the two heads, or (the previous head is gone) by nearest place. */
  lineMapping: 'diff' | 'nearest';
  /** Ids of this head's findings the previous head did not have. */
  new: string[];
  stillOpen: StillOpenFinding[];
  /** Ids of this head's findings that were open at the previous head and are dismissed now. */
  dismissed: string[];
  fixed: GoneFinding[];
}

export interface ReportSections {
  psi?: PsiSection;
  tests?: TestsSection;
  links?: LinksSection;
  history?: HistorySection;
  sanctions?: SanctionsSection;
  qa?: QaSection;
  refine?: RefineView;
  checks?: ProjectChecksSection;
  sincePush?: SincePushSection;
}

export type SectionName = keyof ReportSections;

/**
 * What a run checked and what it did not: one entry per check, scope by scope (the suite, a workspace
 * package, a changed file, a G16 tool, a guard). Every reporter renders this record, and the decision
 * reads its gaps: a run with a gap is never a plain PASS (see routing/decide.ts `markNotVerified`).
 *
 * - `ran`: the check covered all of its scope.
 * - `partial`: it ran on part of its input (a cap, files it could not read); never a pass.
 * - `skipped`: it was not expected to run (turned off, no test setup, no file of its kind).
 * - `not-run`: it was expected to run and did not (the suite did not start, a tool CI runs is missing).
 */
export type CoverageStatus = 'ran' | 'partial' | 'skipped' | 'not-run';

export interface CoverageEntry {
  /** `G8`, `G16 gofmt`, `G2`, … */
  check: string;
  /** What it covers: `the suite`, `package packages/b`, `file core/a.go`, `101 files`. */
  scope: string;
  status: CoverageStatus;
  /** Why it was partial, skipped or not run (or how it ran). */
  reason?: string;
}
