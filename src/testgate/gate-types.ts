import type { Revision } from '../core/revision.js';
import type { Logger } from '../core/trace.js';
import type { BaselineCache } from '../core/ports.js';
import type { SuiteComparison } from './compare.js';
import type { Runner } from './runners/runner.js';
import type { SuiteLimits, SandboxIsolation, EgressRefusal } from '../sandbox/index.js';
import type { TestConfigChange } from './test-config-changes.js';
import type { HiddenTestsEvidence } from './removed-tests-evidence.js';
import type { RunnerId, SuiteResult, TestOutcome } from '../core/suite-result.js';
import type { PackageTestConfig, WorkspaceRun } from './workspaces/workspace-gate.js';
import type { DepsOptions, SideDeps } from './deps/prepare-sides.js';

/** What the test gate is given (the run's limits and settings, the trees, the services) and what it returns. */

export interface TestGateConfig extends SuiteLimits {
  command?: string;
  /** tests.runner: this runner with its default command instead of the detected one. */
  runner?: RunnerId;
  reruns: number;
  /**
   * `auto` (default): in a monorepo (npm/pnpm/yarn workspaces, go.work or nested Go modules, a cargo
   * workspace, Python subprojects) and without a repository-wide tests.command, run only the suites of
   * the packages the change affects, each in its folder; `off`: one run at the root.
   */
  workspaces?: 'auto' | 'off';
  /** The tests config of one workspace package, by its manifest path (tests.* with the path overrides applied). */
  forPackage?: (manifest: string) => PackageTestConfig;
  /** `auto` (default): install the project's dependencies before the runs; `off`: the tree as it is. */
  install?: 'auto' | 'off';
  /** With tests.network: the base's own egress proxy (`egress` is the head's), so one side cannot starve the other. */
  baseEgress?: SuiteLimits['egress'];
}

export interface TestGateOptions {
  repoDir: string;
  /** Repository name for the cache key. */
  repo: string;
  /** The base tree: decides the runner and is the baseline. */
  base: Revision;
  /** The commit whose tests are judged: the test-merge commit when there is one, else the head. */
  candidateSha: string;
  config: TestGateConfig;
  cache: BaselineCache;
  /** Where per-repo build caches live (default: `<tmp>/slopgate-cache/<repo hash>`). */
  cacheDir?: string;
  /** The dependency cache and the egress proxy (defaults: the machine's shared cache, a proxy per run). */
  deps?: DepsOptions;
  signal?: AbortSignal;
  log?: Logger;
  /**
   * Tests that still run with the change but that it weakened (assertions deleted, read statically by
   * the caller): their base version is run against the candidate too, like the tests it hides. Asked
   * once the suites have run; the caller may start its work when `suitesStarted` is called.
   */
  weakenedTests?: () => Promise<((t: TestOutcome) => boolean) | null>;
  /** Called as the head's suite starts (the guards that wait for it then go on; see GuardContext.suites). */
  suitesStarted?: () => void;
  /** Told what slow step starts (installs, the suite at base and head, re-runs), for a progress line. */
  progress?: (text: string) => void;
  /** Told that a named stage starts (install, base suite, head suite); the returned function ends it. */
  stage?: (name: string) => () => void;
}

export interface RerunVerdict {
  test: TestOutcome;
  /** Runs in total (1 + re-runs) and on which re-run it passed, if it did. */
  runs: number;
  passedOnRerun?: number;
}

export interface TestGateResult {
  runner?: Runner['id'];
  /** The project's own test command, as people run it (see Runner.displayCommand). */
  command?: string;
  /** The exact command the sandbox ran, with slopgate's wrapping (see Runner.command). */
  internalCommand?: string;
  skipped?: string;
  baseline?: SuiteResult;
  baselineCached?: boolean;
  candidate?: SuiteResult;
  comparison?: SuiteComparison;
  /** Newly failing tests that failed on every run. */
  regressions: RerunVerdict[];
  /** Newly failing tests that passed on a re-run. */
  flaky: RerunVerdict[];
  /** The whole suite stopped producing results (and a re-run did not bring it back). */
  suiteBroken: boolean;
  /**
   * The base produced results and the candidate did not (killed at the time or process limit, setup
   * failed, toolchain gone): why. The gate then fails closed — this is never a pass.
   */
  notRun?: string;
  /** The candidate ran no test at all although the base ran some. */
  noTestsAtHead?: boolean;
  /** Tests that ran at the base and do not with the change, and how their base version fared against it. */
  hiddenTests?: HiddenTestsEvidence;
  /** Files that decide which tests run and that this change edits (pytest.ini, conftest.py, …). */
  configChanges?: TestConfigChange[];
  /**
   * The runner only knows the exit code and the change edits what that command runs (the
   * package.json test script), so a passing exit code proves nothing.
   */
  unverifiableCommand?: boolean;
  isolation?: SandboxIsolation;
  /** How the suites ran and warnings about the base (see suite-notes.ts). */
  notes?: string[];
  /** With tests.network: what the egress proxy refused, and the hosts it connected to. */
  egress?: { refused: EgressRefusal[]; used: { host: string; bytes: number }[] };
  /** What the dependency stage did at the base and the head, and the toolchain versions used. */
  dependencies?: SideDeps;
  /**
   * The dependencies installed at the base and not at the head: the installer's complaint and the
   * dependency files this change edits (the culprits). Fails closed like `notRun`.
   */
  installFailed?: { message: string; culprits: string[]; output: string };
  /** `skipped` because no test setup was found (or every affected package was turned off): nothing was expected to run. */
  noSetup?: boolean;
  /** In a monorepo: each affected package's own result (the fields above then sum them up). */
  workspace?: WorkspaceRun<TestGateResult>;
}
