import { git } from '../../core/git.js';
import type { RunnerId, SuiteResult } from '../../core/suite-result.js';
import { detectRunner, noTestSetup } from '../runners/detect.js';
import type { Runner } from '../runners/runner.js';
import { affectedPackages, type RunReason } from './affected-packages.js';
import { packageRunner } from './package-runner.js';
import { SubtreeRevision } from './subtree-revision.js';
import type { Workspace, WorkspaceKind } from './workspace-types.js';
import type { Revision } from '../../core/revision.js';

/** What the config says about the tests of one package (tests.* with the overrides matching its manifest). */
export interface PackageTestConfig {
  enabled: boolean;
  command?: string | undefined;
  runner?: RunnerId | undefined;
}

/** One package's part of a workspace run. */
export interface PackageRun<R> {
  name: string;
  dir: string;
  reason: RunReason;
  /** For a dependent: the changed packages that made it run. */
  via?: string[];
  /** The package did not run (disabled in config, no test setup found): why. */
  skipped?: string;
  /** Skipped because its folder has no test setup of its own (no runner detected there). */
  noSetup?: boolean;
  result?: R;
}

export interface WorkspaceRun<R> {
  kind: WorkspaceKind;
  source: string;
  /** Packages in the workspace. */
  total: number;
  /** Changed non-doc files outside every package (every package ran because of them). */
  shared: string[];
  /** The root's own command ran beside the packages (its entry is the package `root` at `.`). */
  rootRan?: boolean;
  packages: PackageRun<R>[];
}

interface WorkspaceGateInput {
  repoDir: string;
  base: Revision;
  candidateSha: string;
  forPackage?: ((manifest: string) => PackageTestConfig) | undefined;
}

async function changedPaths(repoDir: string, base: string, head: string): Promise<string[]> {
  const out = await git(repoDir, ['diff', '--name-only', '-z', '--no-renames', base, head]);
  return out.split('\0').filter(Boolean);
}

/** `../..` for `packages/b`: the way from a package folder up to the repository root. */
function upFrom(dir: string): string {
  return dir === '.'
    ? '.'
    : dir
        .split('/')
        .map(() => '..')
        .join('/');
}

/**
 * Runs the test gate once per package the change affects (see affected-packages.ts), each with the
 * runner its own folder selects (or its config names) and confined to that folder; `runSides` is the
 * gate's base-and-candidate comparison for one runner.
 */
export async function runWorkspaceGate<R>(
  input: WorkspaceGateInput,
  ws: Workspace,
  runSides: (runner: Runner) => Promise<R>,
): Promise<WorkspaceRun<R>> {
  const changed = await changedPaths(input.repoDir, input.base.sha, input.candidateSha);
  const affected = affectedPackages(ws, changed);
  const packages: PackageRun<R>[] = [];
  for (const { pkg, reason, via } of affected.packages) {
    const entry: PackageRun<R> = { name: pkg.name, dir: pkg.dir, reason, ...(via ? { via } : {}) };
    packages.push(entry);
    const cfg = input.forPackage?.(pkg.manifest) ?? { enabled: true };
    if (!cfg.enabled) {
      entry.skipped = `disabled in config (tests.enabled: false for ${pkg.manifest})`;
      continue;
    }
    const tree = pkg.dir === '.' ? input.base : new SubtreeRevision(input.base, pkg.dir);
    const detection = await detectRunner(tree, { command: cfg.command, runner: cfg.runner, up: upFrom(pkg.dir) });
    if ('skipped' in detection) {
      entry.skipped = detection.skipped;
      if (noTestSetup(detection.skipped)) entry.noSetup = true;
      continue;
    }
    const runner = pkg.dir === '.' ? detection.runner : packageRunner(detection.runner, pkg.dir);
    entry.result = await runSides(runner);
  }
  return { kind: ws.kind, source: ws.source, total: ws.packages.length, shared: affected.shared, packages };
}

/** The sides of several package runs as one (for the report's totals): every test and unit, summed time. */
export function mergeSides(sides: SuiteResult[]): SuiteResult | undefined {
  const first = sides[0];
  if (!first) return undefined;
  if (sides.length === 1) return first;
  const rank = { ok: 0, skipped: 1, 'no-results': 2 } as const;
  const worst = sides.reduce((a, b) => (rank[b.status] > rank[a.status] ? b : a));
  return {
    ...worst,
    command: 'per package',
    tests: sides.flatMap((s) => s.tests),
    units: sides.flatMap((s) => s.units),
    durationMs: sides.reduce((n, s) => n + s.durationMs, 0),
  };
}
