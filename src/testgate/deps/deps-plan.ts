/**
 * The shapes of the dependency stage of the test gate: what an ecosystem planner reads from a tree
 * (a {@link DepsPlan}), and what a suite run gets from an installed cache entry ({@link RunDeps}).
 */

export type Ecosystem = 'npm' | 'pnpm' | 'yarn' | 'python' | 'go' | 'cargo' | 'maven';

/** Where an install's result is visible inside the sandbox: the same path at install and at test time. */
export const DEPS_MOUNT = '/opt/slopgate/deps';

/** The exported tree an install runs in, inside the sandbox. */
export const INSTALL_TREE = `${DEPS_MOUNT}/tree`;

/** A file the planner writes into the cache entry before the install runs (a combined requirements file). */
export interface PlanFile {
  /** Path relative to the entry. */
  path: string;
  content: string;
}

export interface DepsPlan {
  ecosystem: Ecosystem;
  /** Everything the install's result depends on; hashed (with the toolchain and platform) into the cache key. */
  keyMaterial: string;
  /** The repository files that decide the install (lockfiles, manifests): a failed install at the head names the ones the PR changed. */
  inputs: string[];
  /**
   * Why the install runs code of the tree itself (a lifecycle script, a package from one of its
   * folders, a build backend, a cargo wrapper, Maven plugins): its result may then depend on any file
   * of the tree, so it is keyed on the tree and serves that tree alone. Absent: the install runs only
   * what the dependency files name, and a tree with the same files may use it.
   */
  projectCode?: string;
  /** The shell script run in the sandbox, cwd = {@link INSTALL_TREE}, with network through the egress proxy. */
  script: string;
  /** Files written into the entry before the script runs. */
  files?: PlanFile[];
  /** Environment of the install (on top of the sandbox's own). */
  env?: Record<string, string>;
  /** What the report should know (which lockfile, what was not possible, a toolchain mismatch). */
  notes: string[];
  /** Tool versions this plan uses, e.g. `{ python: '3.11.7' }`. */
  toolchain: Record<string, string>;
  /** Host paths the install and the tests need read-only (an interpreter outside the usual toolchain roots). */
  hostPaths?: string[];
  /** Test-time environment and PATH entries that do not depend on the entry's content. */
  runEnv?: Record<string, string>;
  runPath?: string[];
  /** A command each test run runs in its tree before tests.setup and the suite: the project's own install. */
  prepare?: PrepareStep;
}

/** A step each test run runs in its tree before tests.setup and the suite; its failure is the suite's. */
export interface PrepareStep {
  command: string;
  /** How the report names it: "the project's own install (pip install -e .)". */
  what: string;
}

/** Nothing to install, and why (vendored sources, no manifest); the reason is a note, not a skip. */
export interface NoInstall {
  none: string;
  notes?: string[];
  toolchain?: Record<string, string>;
  runEnv?: Record<string, string>;
}

/** A bind into a suite run: `dest` is absolute, or relative to the run's tree. Always read-only. */
export interface DepsBind {
  src: string;
  dest: string;
}

/** What one suite run gets from the dependency stage. */
export interface RunDeps {
  binds: DepsBind[];
  /** Directories (absolute, or relative to the tree) covered by a private tmpfs: caches tools write into node_modules. */
  tmpfs: string[];
  env: Record<string, string>;
  /** Prepended to PATH inside the sandbox. */
  path: string[];
  /** A cargo config written into the run's private CARGO_HOME (source replacement for vendored crates). */
  cargoConfig?: string;
  /** Run in the tree before tests.setup and the suite (the project's own install, the build CI runs first). */
  prepare?: PrepareStep;
  /** A Python venv: the run gets a writable layer over it (PIP_PREFIX, on sys.path through the venv's `.pth`). */
  pythonLayer?: boolean;
}

export const NO_RUN_DEPS: RunDeps = { binds: [], tmpfs: [], env: {}, path: [] };

/** Dirs tools write caches into inside node_modules (vite, vitest, babel, xo, tsc); each gets a private tmpfs in a test run. */
export const NODE_MODULES_CACHES = ['.vite', '.vite-temp', '.cache', '.vitest', '.tmp'];
