import { constants } from 'node:fs';
import { lstat, mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, GateInfraError } from '../core/errors.js';
import { readBlobs } from '../core/git.js';
import { Revision, type TreeEntry } from '../core/revision.js';
import type { SuiteResult, TestOutcome } from '../core/suite-result.js';
import type { SuiteComparison } from './compare.js';
import type { Runner, RunnerOutput } from './runners/runner.js';
import { SuiteWorkspace } from './run-suite.js';
import { type SuiteLimits } from '../sandbox/index.js';
import type { TestConfigChange } from './test-config-changes.js';
import type { RunDeps } from './deps/deps-plan.js';

/**
 * The evidence rule for tests that ran at the base and do not run with the change (their file deleted
 * or moved out of the collected paths, or a skip added), and for tests the caller names weakened
 * (assertions deleted; they still run and pass): the base version of their files is put back
 * into a fresh export of the candidate, at the base paths, and only those tests are run there with the
 * runner's re-run selection. A test that fails (or whose module no longer loads) there proves that the
 * change breaks what it checked: that is a blocking `tests-removed` finding. One that passes, or that
 * cannot be run, stays a `risk`. Either way a PR that removes tests is never silently neutral.
 *
 * Tests deselected by an edit of the test configuration (the file is still there and pytest.ini,
 * conftest.py, vitest.config.* … changed) are not re-run: that edit alone is already blocking.
 */

export interface HiddenTestsEvidence {
  /** Passed at the base; their base version fails against the candidate (message: the first failure). */
  failing: TestOutcome[];
  /** Passed at the base; their base version passes against the candidate. */
  passing: TestOutcome[];
  /** Passed at the base; their base version could not be run against the candidate. */
  notRun: TestOutcome[];
  /** Why `notRun` could not be run (one reason for the whole re-run). */
  notRunReason?: string;
  /** Ids of the tests the change skips (they ran at the base); the others are gone. */
  skipped: string[];
  /** Ids of the tests that still run but that the caller named weakened (`weakenedTests`). */
  weakened: string[];
  /** The base files put back for the run. */
  restored: string[];
  /** Paths the candidate has as a submodule, where the base had the tests (submodules are not exported). */
  submodules: string[];
}

export interface HiddenTestsOptions {
  repoDir: string;
  base: Revision;
  candidateSha: string;
  runner: Runner;
  limits: SuiteLimits;
  baseline: SuiteResult;
  candidate: SuiteResult;
  comparison: SuiteComparison;
  configChanges: TestConfigChange[];
  cacheDir: string;
  /** The candidate's installed dependencies (as its own run had them). */
  runDeps?: RunDeps;
  /** Tests that passed at both sides and whose base version is to be run too (assertions deleted). */
  weakenedTests?: () => Promise<((t: TestOutcome) => boolean) | null>;
  signal?: AbortSignal;
}

/** The file a test lives in: its `file`, else the path part of its unit id (`py:tests/test_x.py`). */
export function testFileOf(t: TestOutcome): string {
  return t.file ?? (t.unit.includes(':') ? t.unit.slice(t.unit.indexOf(':') + 1) : t.unit);
}

/**
 * Removed tests that an edit of the test configuration deselected: their file is still in the candidate
 * and the change edits what the command selects. (The rest were deleted or moved.)
 */
export function deselectedByConfig(
  removed: TestOutcome[],
  configChanges: TestConfigChange[],
  candidatePaths: ReadonlySet<string>,
): TestOutcome[] {
  if (configChanges.length === 0) return [];
  return removed.filter((t) => candidatePaths.has(testFileOf(t)));
}

/** Test files and the files pytest loads beside them (conftest.py, package __init__.py). */
const TEST_FILE =
  /(^|\/)(test_[^/]*\.py|[^/]*_test\.py|conftest\.py|__init__\.py|[^/]*_test\.go|[^/]*\.(test|spec)\.[cm]?[jt]sx?)$|(^|\/)(tests?|__tests__|spec)\//;

/**
 * Base files to put back for `tests` — each test's file (or a Go package's test files) and pytest's
 * support files above it — and the candidate's conftest.py files on that path that the base does not
 * have, which are taken away: a conftest.py the change adds could rewrite the outcome of the restored
 * tests (a `pytest_runtest_makereport` hook that turns failures into passes).
 */
function filesToRestore(
  tests: TestOutcome[],
  baseEntries: Map<string, TreeEntry>,
  candidateEntries: Map<string, TreeEntry>,
): { restore: (TreeEntry & { path: string })[]; remove: string[] } {
  const out = new Map<string, TreeEntry & { path: string }>();
  const remove = new Set<string>();
  const consider = (path: string) => {
    const b = baseEntries.get(path);
    if (!b || (b.mode !== '100644' && b.mode !== '100755')) return;
    // A source file the candidate still has is the candidate's code: only test files are replaced.
    if (candidateEntries.get(path)?.oid === b.oid) return;
    if (candidateEntries.has(path) && !TEST_FILE.test(path)) return;
    out.set(path, { path, ...b });
  };
  for (const t of tests) {
    const file = testFileOf(t);
    if (baseEntries.has(file)) consider(file);
    else {
      // A directory unit (a Go package): its test files.
      const prefix = file === '.' ? '' : `${file}/`;
      for (const p of baseEntries.keys())
        if (p.startsWith(prefix) && !p.slice(prefix.length).includes('/') && TEST_FILE.test(p)) consider(p);
    }
    if (file.endsWith('.py')) {
      // pytest loads every conftest.py from the root down to the test's folder, and the folders' __init__.py.
      const parts = file.split('/');
      for (let i = 0; i < parts.length; i++) {
        const dir = parts.slice(0, i).join('/');
        const conftest = dir ? `${dir}/conftest.py` : 'conftest.py';
        consider(conftest);
        if (!baseEntries.has(conftest) && candidateEntries.has(conftest)) remove.add(conftest);
        if (dir) consider(`${dir}/__init__.py`);
      }
    }
  }
  return { restore: [...out.values()].sort((a, b) => (a.path < b.path ? -1 : 1)), remove: [...remove].sort() };
}

/** Removes `rel` inside `root`, unless a folder on the way is not a real folder (then it is not there anyway). */
async function removeInside(root: string, rel: string): Promise<void> {
  let dir = root;
  for (const part of rel.split('/').slice(0, -1)) {
    dir = join(dir, part);
    if (!(await lstat(dir).catch(() => null))?.isDirectory()) return;
  }
  await rm(join(root, rel), { recursive: true, force: true });
}

/**
 * Writes `content` at `rel` inside `root` without following anything the candidate's tree put there:
 * a symlink or file in the way of a parent folder is removed, and the file itself is created anew.
 */
async function writeInside(root: string, rel: string, content: Buffer, executable: boolean): Promise<void> {
  const parts = rel.split('/');
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const st = await lstat(dir).catch(() => null);
    if (st && !st.isDirectory()) await rm(dir, { recursive: true, force: true });
    if (!st?.isDirectory()) await mkdir(dir);
  }
  const file = join(dir, parts[parts.length - 1]!);
  await rm(file, { recursive: true, force: true });
  const fh = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, executable ? 0o755 : 0o644);
  try {
    await fh.write(content);
  } finally {
    await fh.close();
  }
}

/** The sandbox's temp paths out of messages (`<tmp>/work/tests/x.py` becomes `tests/x.py`). */
function scrub(out: RunnerOutput, ws: SuiteWorkspace): RunnerOutput {
  const clean = (text: string) => text.split(`${ws.workdir}/`).join('').split(ws.root).join('<sandbox>');
  return {
    ...out,
    tests: out.tests.map((t) => (t.message ? { ...t, message: clean(t.message) } : t)),
    units: out.units.map((u) => (u.message ? { ...u, message: clean(u.message) } : u)),
  };
}

function classify(tests: TestOutcome[], out: RunnerOutput): Pick<HiddenTestsEvidence, 'failing' | 'passing' | 'notRun'> {
  const byId = new Map(out.tests.map((t) => [t.id, t]));
  // A test module that no longer loads is a failure of its tests; a package that no longer compiles is
  // not (the restored file may clash with the candidate's own test files), so those count as not run.
  const brokenModules = new Map(
    out.units.filter((u) => u.status === 'broken' && (u.kind === 'module' || u.kind === 'file')).map((u) => [u.id, u]),
  );
  const failing: TestOutcome[] = [];
  const passing: TestOutcome[] = [];
  const notRun: TestOutcome[] = [];
  for (const t of tests) {
    const r = byId.get(t.id);
    const unit = brokenModules.get(t.unit);
    if (r?.status === 'failed') failing.push({ ...t, status: 'failed', ...(r.message ? { message: r.message } : {}) });
    else if (r?.status === 'passed') passing.push(t);
    else if (unit) failing.push({ ...t, status: 'failed', message: unit.message ?? 'its test module no longer loads' });
    else notRun.push(t);
  }
  return { failing, passing, notRun };
}

interface Selection {
  tests: TestOutcome[];
  baseEntries: Map<string, TreeEntry>;
  candidateEntries: Map<string, TreeEntry>;
  evidence: Pick<HiddenTestsEvidence, 'skipped' | 'weakened' | 'submodules'>;
}

/** The tests that passed at the base and do not run with the change (other than deselected by config). */
async function selectHidden(opts: HiddenTestsOptions): Promise<Selection | undefined> {
  const candidateRev = new Revision(opts.repoDir, opts.candidateSha);
  const [baseEntries, candidateEntries] = await Promise.all([opts.base.entries(), candidateRev.entries()]);
  const passedAtBase = (t: TestOutcome) => t.status === 'passed';
  const deselected = new Set(
    deselectedByConfig(opts.comparison.removed, opts.configChanges, new Set(candidateEntries.keys())).map((t) => t.id),
  );
  const gone = opts.comparison.removed.filter((t) => passedAtBase(t) && !deselected.has(t.id));
  const candidateStatus = new Map(opts.candidate.tests.map((t) => [t.id, t.status]));
  // A test skipped because its file no longer loads (vitest skips the tests of a failing beforeAll) is
  // reported with that unit as build-broken.
  const broken = new Set(opts.candidate.units.filter((u) => u.status === 'broken').flatMap((u) => [u.id, u.group]));
  const skipped = opts.baseline.tests.filter((t) => passedAtBase(t) && candidateStatus.get(t.id) === 'skipped' && !broken.has(t.unit));
  const weakenedTests = await opts.weakenedTests?.();
  const weakened = weakenedTests
    ? opts.baseline.tests.filter((t) => passedAtBase(t) && candidateStatus.get(t.id) === 'passed' && weakenedTests(t))
    : [];
  const tests = [...gone, ...skipped, ...weakened];
  if (tests.length === 0) return undefined;
  const submodules = [...new Set(tests.map(testFileOf))].flatMap((file) =>
    [...candidateEntries].filter(([p, e]) => e.mode === '160000' && (file === p || file.startsWith(`${p}/`))).map(([p]) => p),
  );
  return {
    tests,
    baseEntries,
    candidateEntries,
    evidence: { skipped: skipped.map((t) => t.id), weakened: weakened.map((t) => t.id), submodules: [...new Set(submodules)].sort() },
  };
}

/**
 * Runs the base version of the tests the candidate no longer runs; undefined when there are none. An
 * error on the way (other than one of the machine, which stops the gate) makes them "not run".
 */
export async function hiddenTestsEvidence(opts: HiddenTestsOptions): Promise<HiddenTestsEvidence | undefined> {
  const selection = await selectHidden(opts);
  if (!selection) return undefined;
  try {
    return await runBaseVersions(opts, selection);
  } catch (err) {
    if (err instanceof GateInfraError || opts.signal?.aborted) throw err;
    return {
      failing: [],
      passing: [],
      notRun: selection.tests,
      notRunReason: `the run failed: ${errorMessage(err)}`,
      restored: [],
      ...selection.evidence,
    };
  }
}

async function runBaseVersions(
  opts: HiddenTestsOptions,
  { tests, baseEntries, candidateEntries, evidence }: Selection,
): Promise<HiddenTestsEvidence> {
  const notRun = (reason: string): HiddenTestsEvidence => ({
    failing: [],
    passing: [],
    notRun: tests,
    notRunReason: reason,
    restored: [],
    ...evidence,
  });
  if (!opts.runner.rerun) return notRun(`the ${opts.runner.id} runner cannot run single tests`);

  const { restore: files, remove } = filesToRestore(tests, baseEntries, candidateEntries);
  const restored = files.map((e) => e.path);
  const blobs = await readBlobs(
    opts.repoDir,
    files.map((e) => e.oid),
    64 * 1024 * 1024,
  );
  const ws = await SuiteWorkspace.create(opts.repoDir, opts.candidateSha, opts.cacheDir, opts.limits, opts.signal, opts.runDeps);
  try {
    for (const path of remove) await removeInside(ws.workdir, path);
    for (const entry of files) {
      const content = blobs.get(entry.oid)?.content;
      if (!content) return notRun(`the base version of \`${entry.path}\` could not be read`);
      await writeInside(ws.workdir, entry.path, content, entry.mode === '100755');
    }
    if (opts.limits.setup) {
      const s = await ws.exec(opts.limits.setup, opts.limits.timeoutSec * 1000);
      if (s.killedBy || s.exitCode !== 0) return { ...notRun('the setup command (tests.setup) failed'), restored };
    }
    const out = await opts.runner.rerun(ws.context(), tests);
    if (out.killedBy) return { ...notRun(`the run was stopped (${out.killedBy})`), restored };
    if (out.missingToolchain) return { ...notRun(out.missingToolchain), restored };
    if (out.exitCodeOnly) return { ...notRun(`the ${opts.runner.id} runner reports only an exit code`), restored };
    const result = classify(tests, scrub(out, ws));
    return {
      ...result,
      ...(result.notRun.length ? { notRunReason: 'their base version ran no such test against this change' } : {}),
      restored,
      ...evidence,
    };
  } finally {
    await ws.dispose();
  }
}
