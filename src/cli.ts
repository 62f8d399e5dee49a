#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { loadConfigFile } from './config/load.js';
import { defaultConfig, type SlopgateConfig } from './config/schema.js';
import { InputError, errorMessage } from './core/errors.js';
import { defaultBranch } from './core/patch-set.js';
import { runGate } from './core/pipeline.js';
import { createLogger } from './core/trace.js';
import { VERSION } from './core/version.js';
import { GUARDS } from './guards/index.js';
import { REPORT_FORMATS, renderReport, type ReportFormat } from './report/index.js';

const USAGE = `slopgate ${VERSION} — gate a change against the ways LLM-written patches go wrong

Usage:
  slopgate check [--repo DIR] [--base REF] [--head REF] [--format text|json|markdown|sarif]
                 [--config FILE] [--only G1,G2] [--strict] [--no-tests] [--output FILE] [--trace FILE]
                 [--db DIR|postgres://…]
  slopgate demo  [--format …] [--keep]
  slopgate schema
  slopgate worker [--concurrency N]
  slopgate --version | --help

check   compares the merge-base of --base (default: the default branch) and --head (default: HEAD)
        with --head, runs every guard and prints one decision.
        Exit code: 0 PASS/ADVISE, 1 blocking decision, 2 usage, config or git errors.
        --db keeps runs in a database (G9 history, cached test baselines); without it nothing is stored.
demo    builds a small repository whose PR reproduces real slop and gates it.
schema  prints the JSON Schema of .github/slopgate.yml.
worker  takes gate jobs from the shared PostgreSQL queue (needs DATABASE_URL, APP_ID and
        PRIVATE_KEY or PRIVATE_KEY_PATH, as the App server) until stopped.
`;

async function loadConfig(repoDir: string, file: string | undefined): Promise<SlopgateConfig> {
  if (file) return loadConfigFile(resolve(file));
  return defaultConfig();
}

export interface CheckArgs {
  repo: string;
  base?: string;
  head: string;
  format: ReportFormat;
  config?: string;
  only?: string[];
  strict: boolean;
  /** Skip the test-regression gate (G8). */
  noTests?: boolean;
  output?: string;
  trace?: string;
  db?: string;
}

/** Runs `slopgate check`; returns the exit code. */
export async function runCheck(args: CheckArgs, write: (s: string) => void): Promise<number> {
  const repoDir = resolve(args.repo);
  const config = await loadConfig(repoDir, args.config);
  if (args.strict) config.strict = true;
  const base = args.base ?? (await defaultBranch(repoDir));
  const log = createLogger(args.trace ? { level: 'info', destination: resolve(args.trace) } : {});
  const store = args.db ? await (await import('./store/open-store.js')).openStore(/^postgres(ql)?:\/\//i.test(args.db) ? { url: args.db } : { dataDir: resolve(args.db) }) : undefined;
  const services = store ? (await import('./store/services.js')).storeServices(store, { repo: repoDir }) : undefined;
  let report: Awaited<ReturnType<typeof runGate>>;
  try {
    report = await runGate({
      repoDir,
      services: { ...services, ...(args.noTests ? { tests: { enabled: false } } : {}) },
      base,
      head: args.head,
      config,
      guards: GUARDS,
      ...(args.only ? { only: args.only } : {}),
      log,
    });
    if (store) await store.saveRun(report, { trigger: 'cli' });
  } finally {
    await store?.close();
  }
  const out = renderReport(args.format, report, { color: args.format === 'text' && !args.output && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR });
  if (args.output) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(resolve(args.output), out);
  } else write(out);
  return ['PASS', 'ADVISE', 'SKIPPED'].includes(report.decision.outcome) ? 0 : 1;
}

function parseFormat(value: string | undefined): ReportFormat {
  const f = (value ?? 'text') as ReportFormat;
  if (!REPORT_FORMATS.includes(f)) throw new InputError(`unknown format '${value}'`, `use one of ${REPORT_FORMATS.join(', ')}`);
  return f;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const write = (s: string) => process.stdout.write(s);
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    write(USAGE);
    return command ? 0 : 2;
  }
  if (command === '--version' || command === '-v') {
    write(`${VERSION}\n`);
    return 0;
  }
  switch (command) {
    case 'check': {
      const { values } = parseArgs({
        args: rest,
        options: {
          repo: { type: 'string', default: '.' },
          base: { type: 'string' },
          head: { type: 'string', default: 'HEAD' },
          format: { type: 'string', short: 'f' },
          config: { type: 'string', short: 'c' },
          only: { type: 'string' },
          strict: { type: 'boolean', default: false },
          'no-tests': { type: 'boolean', default: false },
          output: { type: 'string', short: 'o' },
          trace: { type: 'string' },
          db: { type: 'string' },
        },
        strict: true,
        allowPositionals: false,
      });
      return runCheck(
        {
          repo: values.repo!,
          head: values.head!,
          format: parseFormat(values.format),
          strict: values.strict!,
          noTests: values['no-tests']!,
          ...(values.base ? { base: values.base } : {}),
          ...(values.config ? { config: values.config } : {}),
          ...(values.only ? { only: values.only.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
          ...(values.output ? { output: values.output } : {}),
          ...(values.trace ? { trace: values.trace } : {}),
          ...(values.db ? { db: values.db } : {}),
        },
        write,
      );
    }
    case 'demo': {
      const { values } = parseArgs({ args: rest, options: { format: { type: 'string', short: 'f' }, keep: { type: 'boolean', default: false } }, strict: true });
      const { runDemo } = await import('./demo/run-demo.js');
      return runDemo({ format: parseFormat(values.format), keep: values.keep! }, write);
    }
    case 'worker': {
      const { values } = parseArgs({ args: rest, options: { concurrency: { type: 'string' } }, strict: true });
      const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
      if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) throw new InputError(`--concurrency must be a positive integer, got '${values.concurrency}'`);
      const { runGateWorker } = await import('./github/worker-entry.js');
      return runGateWorker(concurrency ? { concurrency } : {});
    }
    case 'schema': {
      const { configJsonSchema } = await import('./config/json-schema.js');
      write(JSON.stringify(configJsonSchema(), null, 2) + '\n');
      return 0;
    }
    default:
      throw new InputError(`unknown command '${command}'`, 'run slopgate --help');
  }
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href;
if (isMain) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof InputError || (err as { code?: string }).code?.startsWith?.('ERR_PARSE_ARGS')) {
        process.stderr.write(`slopgate: ${errorMessage(err)}\n`);
        if (err instanceof InputError && err.hint) process.stderr.write(`  hint: ${err.hint}\n`);
        process.exitCode = 2;
        return;
      }
      process.stderr.write(`slopgate: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 3;
    },
  );
}
