import { stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { loadConfigFile } from '../config/load.js';
import { canonicalGuardId, knownGuardIdsText, unknownGuardIds } from '../core/guard-ids.js';
import { defaultConfig, type SlopgateConfig } from '../core/config-schema.js';
import { InputError, errorMessage } from '../core/errors.js';
import { defaultBranch } from '../core/patch-set.js';
import { runGate } from '../gate/run-gate.js';
import { createLogger } from '../core/trace.js';
import { GUARDS } from '../guards/index.js';
import { cliLlmOptions, type LlmDeps } from '../gate/llm-stage-options.js';
import { REPORT_FORMATS, renderReport, type ReportFormat } from '../report/index.js';
import { exitCodeFor, type FailLevel } from '../routing/fail-level.js';
import { isOneOf } from '../core/one-of.js';
import { cliStoreOptions, storeNotice } from './store-options.js';

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

/** Fails before the gate runs when the report could not be written to `output`. */
async function checkOutputPath(output: string): Promise<string> {
  const file = resolve(output);
  const folder = dirname(file);
  const info = await stat(folder).catch(() => undefined);
  if (!info)
    throw new InputError(
      `--output ${output}: the folder ${folder} does not exist`,
      `create it first (mkdir -p ${folder}) or write somewhere else`,
    );
  if (!info.isDirectory()) throw new InputError(`--output ${output}: ${folder} is not a folder`);
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw new InputError(`--output ${output}: that is a folder; give a file name`);
  return file;
}

async function loadConfig(file: string | undefined): Promise<SlopgateConfig> {
  return file ? loadConfigFile(resolve(file)) : defaultConfig();
}

/** Runs `slopgate check`; returns the exit code. */
export async function runCheck(args: CheckArgs, write: (s: string) => void, llm: LlmDeps = {}): Promise<number> {
  const repoDir = resolve(args.repo);
  const only = args.only ? checkGuardIds('--only', args.only) : undefined;
  const skip = args.skip ? checkGuardIds('--skip', args.skip) : [];
  const output = args.output ? await checkOutputPath(args.output) : undefined;
  const config = await loadConfig(args.config);
  if (args.strict) config.strict = true;
  const base = args.base ?? (await defaultBranch(repoDir));
  const llmOptions = await cliLlmOptions(repoDir, args.head, config, args.qa ?? false, llm);
  const log = createLogger(args.trace ? { level: 'info', destination: resolve(args.trace) } : {});
  // The store opens while the gate starts (see pendingStoreServices); one that cannot open stops the run below.
  const db = args.db;
  const opening = db ? import('../store/open-store.js').then((m) => m.openStore(cliStoreOptions(db))) : undefined;
  opening?.catch(() => undefined);
  const services = opening ? (await import('../store/services.js')).pendingStoreServices(opening, { repo: repoDir }) : undefined;
  let report: Awaited<ReturnType<typeof runGate>>;
  try {
    report = await runGate({
      repoDir,
      services: { ...services, ...(args.noTests ? { tests: { enabled: false } } : {}) },
      base,
      head: args.head,
      config,
      guards: GUARDS,
      ...(only ? { only } : {}),
      ...(skip.length ? { skip: Object.fromEntries(skip.map((id) => [id, 'skipped (--skip)'])) } : {}),
      log,
      ...llmOptions,
    });
    const store = await opening;
    // The verdict does not depend on the history: a run that cannot be stored is reported all the same.
    if (store)
      await store
        .saveRun(report, { trigger: 'cli' })
        .catch((err: unknown) => storeNotice(`warning: this run was not stored in ${args.db}: ${errorMessage(err)}`));
  } finally {
    await (await opening?.catch(() => undefined))?.close();
  }
  const out = renderReport(args.format, report, {
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
