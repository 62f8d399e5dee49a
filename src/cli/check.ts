import { stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { canonicalGuardId, knownGuardIdsText, unknownGuardIds } from '../core/guard-ids.js';
import { InputError, errorMessage } from '../core/errors.js';
import { assertRepo, defaultBranch, resolveCommit } from '../core/patch-set.js';
import { runGate } from '../gate/run-gate.js';
import { createLogger, type Logger } from '../core/trace.js';
import { FileBaselineCache, fileBaselineCacheDir } from '../testgate/index.js';
import { GUARDS } from '../guards/index.js';
import { cliLlmOptions, type LlmDeps } from '../gate/llm-stage-options.js';
import { REPORT_FORMATS, renderReport, type ReportFormat } from '../report/index.js';
import { exitCodeFor, type FailLevel } from '../routing/fail-level.js';
import { isOneOf } from '../core/one-of.js';
import { cliStoreOptions, storeNotice } from './store-options.js';
import type { Store } from '../store/store.js';
import { cliConfig } from './repo-config.js';
import { snapshotWorkingTree, uncommittedCount } from './working-tree.js';
import { progressLine, type ProgressClock, type ProgressStream } from './progress-line.js';
import { sandboxCapabilitiesAsync } from '../sandbox/index.js';

export interface CheckArgs {
  repo: string;
  base?: string;
  head: string;
  format: ReportFormat;
  config?: string;
  only?: string[];
  /** Guard ids not to run (`--skip`). */
  skip?: string[];
  strict: boolean;
  /** Skip the test-regression gate (G8). */
  noTests?: boolean;
  /** What makes the exit code 1 (default `fail`: a blocking decision, as without the flag). */
  failLevel?: FailLevel;
  output?: string;
  trace?: string;
  db?: string;
  /** Run the Q&A self-consistency phase even when `qa.enabled` is false (`--qa`). */
  qa?: boolean;
  /** Gate the working tree (uncommitted changes included) against the base, as a pull request of it would be. */
  workingTree?: boolean;
  /** No progress on stderr (`--quiet`). */
  quiet?: boolean;
}

export function parseFormat(value: string | undefined): ReportFormat {
  const f = value ?? 'text';
  if (!isOneOf(REPORT_FORMATS, f)) throw new InputError(`unknown format '${value}'`, `use one of ${REPORT_FORMATS.join(', ')}`);
  return f;
}

/** `--only`/`--skip` values in the registry's spelling; an unknown id is an error that lists the known ones. */
export function checkGuardIds(flag: string, ids: string[]): string[] {
  const unknown = unknownGuardIds(ids);
  if (unknown.length) {
    throw new InputError(
      `${flag}: unknown guard id${unknown.length === 1 ? '' : 's'} ${unknown.map((u) => `'${u}'`).join(', ')}`,
      `known ids: ${knownGuardIdsText()}`,
    );
  }
  return ids.map((id) => canonicalGuardId(id) ?? id);
}

/**
 * Fails before the gate runs when a file could not be written to `path` (`--output`, `--trace`): both
 * refuse a folder that does not exist rather than one creating it and the other not.
 */
export async function checkWritablePath(flag: string, path: string): Promise<string> {
  const file = resolve(path);
  const folder = dirname(file);
  const info = await stat(folder).catch(() => undefined);
  if (!info)
    throw new InputError(
      `${flag} ${path}: the folder ${folder} does not exist`,
      `create it first (mkdir -p ${folder}) or write somewhere else`,
    );
  if (!info.isDirectory()) throw new InputError(`${flag} ${path}: ${folder} is not a folder`);
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw new InputError(`${flag} ${path}: that is a folder; give a file name`);
  return file;
}

/** The commit to gate: `--head`, or a snapshot of the working tree with `--working-tree`; warns about uncommitted work left out. */
async function headToGate(repoDir: string, args: CheckArgs, warn: (s: string) => void): Promise<{ ref: string; label?: string }> {
  if (args.workingTree) {
    if (args.head !== 'HEAD')
      throw new InputError('--working-tree gates the working tree on top of HEAD; it cannot be combined with --head', 'drop --head');
    return { ref: await snapshotWorkingTree(repoDir), label: 'working tree' };
  }
  const [head, current] = await Promise.all([resolveCommit(repoDir, args.head), resolveCommit(repoDir, 'HEAD').catch(() => null)]);
  if (head === current) {
    const n = await uncommittedCount(repoDir);
    if (n > 0)
      warn(
        `slopgate: warning: ${n} uncommitted change${n === 1 ? '' : 's'} in the working tree ${n === 1 ? 'is' : 'are'} not part of this check ` +
          `(it gates the commits up to ${args.head})\n  hint: commit them, or pass --working-tree to gate them as a pull request would\n`,
      );
  }
  return { ref: args.head };
}

/** Where `check` talks to the person besides the report: warnings, and the progress line of slow work. */
export interface CheckIo {
  /** Default: stderr. */
  warn?: (s: string) => void;
  /** Where progress is told (default: stderr): a line redrawn on a terminal, plain lines and heartbeats elsewhere. */
  stderr?: ProgressStream;
  /** The progress line's clock (tests). */
  clock?: ProgressClock;
}

/** With `--trace`: when the CLI reached a step (ms since the process started). */
function cliStage(log: Logger, stage: string): void {
  log.info({ event: 'cli.stage', stage, atMs: Math.round(performance.now()) }, 'cli.stage');
}

/** Runs `slopgate check`; returns the exit code. */
export async function runCheck(args: CheckArgs, write: (s: string) => void, llm: LlmDeps = {}, io: CheckIo = {}): Promise<number> {
  const warn = io.warn ?? ((s: string) => process.stderr.write(s));
  // The sandbox probe's commands run while the config and the commits are read (G8 asks for it first).
  if (!args.noTests) sandboxCapabilitiesAsync().catch(() => undefined);
  const repoDir = resolve(args.repo);
  const only = args.only ? checkGuardIds('--only', args.only) : undefined;
  const skip = args.skip ? checkGuardIds('--skip', args.skip) : [];
  const output = args.output ? await checkWritablePath('--output', args.output) : undefined;
  const trace = args.trace ? await checkWritablePath('--trace', args.trace) : undefined;
  await assertRepo(repoDir);
  const base = args.base ?? (await defaultBranch(repoDir));
  // Both ask git a few questions: side by side, the config's error (an unknown base) reported first.
  const headRead = headToGate(repoDir, args, warn);
  headRead.catch(() => undefined);
  const { config, source: configSource } = await cliConfig(repoDir, base, args.config);
  const head = await headRead;
  if (args.strict) config.strict = true;
  const llmOptions = await cliLlmOptions(repoDir, head.ref, config, args.qa ?? false, llm);
  const log = createLogger(trace ? { level: 'info', destination: trace } : {});
  // The store opens when the gate first needs it (see pendingStoreServices), else after the gate; one
  // that cannot open stops the run below.
  const db = args.db;
  let opening: Promise<Store> | undefined;
  const open = db
    ? () => {
        if (!opening) {
          opening = import('../store/open-store.js').then((m) => m.openStore(cliStoreOptions(db)));
          // Awaited below; until then a failure must not count as unhandled.
          opening.catch(() => undefined);
        }
        return opening;
      }
    : undefined;
  // Without a store, test baselines are kept in files, so a second check against the same base runs only the head.
  const services = open
    ? (await import('../store/services.js')).pendingStoreServices(open, { repo: repoDir })
    : { baselineCache: new FileBaselineCache(fileBaselineCacheDir()) };
  const progress = progressLine(io.stderr ?? process.stderr, !args.quiet, io.clock);
  progress.update(`gating ${base}..${head.label ?? args.head}: running the guards`);
  cliStage(log, 'gate starts');
  let report: Awaited<ReturnType<typeof runGate>>;
  try {
    report = await runGate({
      repoDir,
      services: {
        ...services,
        tests: {
          ...(args.noTests ? { enabled: false } : {}),
          progress: (text) => progress.update(text),
          stage: (name) => progress.begin(name),
        },
        host: 'cli',
      },
      base,
      head: head.ref,
      config,
      configSource,
      guards: GUARDS,
      ...(only ? { only } : {}),
      ...(skip.length ? { skip: Object.fromEntries(skip.map((id) => [id, 'skipped (--skip)'])) } : {}),
      log,
      ...llmOptions,
    });
    if (head.label) report.head.ref = head.label;
    cliStage(log, 'gate done');
    const store = await open?.();
    // The verdict does not depend on the history: a run that cannot be stored is reported all the same.
    if (store)
      await store
        .saveRun(report, { trigger: 'cli' })
        .catch((err: unknown) => storeNotice(`warning: this run was not stored in ${args.db}: ${errorMessage(err)}`));
    cliStage(log, 'run stored');
  } finally {
    progress.done();
    await (await opening?.catch(() => undefined))?.close();
    cliStage(log, 'store closed');
  }
  const out = renderReport(args.format, report, {
    host: 'cli',
    color: args.format === 'text' && !output && process.stdout.isTTY && !process.env.NO_COLOR,
  });
  if (output) {
    try {
      await writeFile(output, out);
    } catch (err) {
      throw new InputError(`cannot write the report to ${args.output}: ${errorMessage(err)}`);
    }
  } else write(out);
  return exitCodeFor(report, args.failLevel ?? 'fail');
}
