/**
 * The test gate's front door: the one file of src/testgate/ that other folders import. The test gate is G8's
 * regression run (the suite on the base and on the head, in the sandbox, compared), its baseline cache and the
 * evidence it reads from the trees; project-tools/ is the sandboxed environment G16 and G17 run the project's
 * own tools in.
 */
export { FileBaselineCache, MemoryBaselineCache, fileBaselineCacheDir, sharedMemoryBaselineCache } from './baseline-cache.js';
export { missingSystemPackages } from './ci-system-packages.js';
export { findCiTestCommands, unreadCiLines } from './ci-test-command.js';
export { matchToolchain, pinnedRustToolchain } from './deps/cargo-deps.js';
export { ENTRY_CONTENT, depCacheOptionsFromEnv } from './deps/dep-cache.js';
export type { RunDeps } from './deps/deps-plan.js';
export { fileCoverage } from './file-coverage.js';
export type { RerunVerdict, TestGateResult } from './gate-types.js';
export { runTestGate } from './gate.js';
export { locateTest } from './locate-test.js';
export { type ToolEcosystem, type ToolRunResult, envUnavailable, projectEnv, runOnSide } from './project-tools/project-env.js';
export { deselectedByConfig, testFileOf } from './removed-tests-evidence.js';
export { pytestCiArgs } from './runners/ci-args.js';
export { type Detection, detectRunner } from './runners/detect.js';
export { describeNoResults } from './runners/failure-cause.js';
export { describeChanges } from './test-config-changes.js';
export { npmWorkspace } from './workspaces/npm-workspace.js';
export type { WorkspaceRun } from './workspaces/workspace-gate.js';
export type { Workspace } from './workspaces/workspace-types.js';
