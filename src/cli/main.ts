import { parseArgs } from 'node:util';
import { InputError } from '../core/errors.js';
import { VERSION } from '../core/version.js';
import { parseFailLevel } from '../routing/fail-level.js';
import { COMMAND_HELP, USAGE } from './help.js';

const HELP = { help: { type: 'boolean', short: 'h', default: false } } as const;
/** The options `check` and `refine` share: which repository and commits, how to print, which config. */
const PR_OPTIONS = {
  repo: { type: 'string', default: '.' },
  base: { type: 'string' },
  head: { type: 'string', default: 'HEAD' },
  format: { type: 'string', short: 'f' },
  config: { type: 'string', short: 'c' },
} as const;

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/**
 * Runs one slopgate command line (without `node` and the script); returns the exit code.
 *
 * Each command imports what it runs when it runs (`await import`), so that `--version`, `help` and a command's
 * `--help` load only this file and the help text: the pipeline, its parsers and the guards take most of a
 * second to load, the store and the App more (`npm run bench` measures the start-up).
 */
export async function main(argv: string[], write: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') {
    write(USAGE);
    return command ? 0 : 2;
  }
  if (command === 'help') {
    const topic = rest[0];
    if (topic && !COMMAND_HELP[topic]) throw new InputError(`unknown command '${topic}'`, 'run slopgate --help');
    write(topic ? COMMAND_HELP[topic]! : USAGE);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    write(`${VERSION}\n`);
    return 0;
  }
  const help = () => {
    write(COMMAND_HELP[command]!);
    return 0;
  };
  switch (command) {
    case 'check': {
      const { values } = parseArgs({
        args: rest,
        options: {
          ...HELP,
          ...PR_OPTIONS,
          only: { type: 'string' },
          skip: { type: 'string' },
          strict: { type: 'boolean', default: false },
          'no-tests': { type: 'boolean', default: false },
          qa: { type: 'boolean', default: false },
          'fail-level': { type: 'string' },
          output: { type: 'string', short: 'o' },
          trace: { type: 'string' },
          db: { type: 'string' },
          'working-tree': { type: 'boolean', default: false },
          quiet: { type: 'boolean', short: 'q', default: false },
        },
        strict: true,
        allowPositionals: false,
      });
      if (values.help) return help();
      const { parseFormat, runCheck } = await import('./check.js');
      const only = list(values.only);
      const skip = list(values.skip);
      return runCheck(
        {
          repo: values.repo,
          head: values.head,
          format: parseFormat(values.format),
          strict: values.strict,
          noTests: values['no-tests'],
          qa: values.qa,
          workingTree: values['working-tree'],
          quiet: values.quiet,
          failLevel: parseFailLevel(values['fail-level']),
          ...(values.base ? { base: values.base } : {}),
          ...(values.config ? { config: values.config } : {}),
          ...(only ? { only } : {}),
          ...(skip ? { skip } : {}),
          ...(values.output ? { output: values.output } : {}),
          ...(values.trace ? { trace: values.trace } : {}),
          ...(values.db ? { db: values.db } : {}),
        },
        write,
      );
    }
    case 'refine': {
      const { values } = parseArgs({
        args: rest,
        options: {
          ...HELP,
          ...PR_OPTIONS,
          apply: { type: 'boolean', default: false },
          'no-tests': { type: 'boolean', default: false },
          db: { type: 'string' },
        },
        strict: true,
        allowPositionals: false,
      });
      if (values.help) return help();
      const { parseRefineFormat, runRefine } = await import('./refine.js');
      return runRefine(
        {
          repo: values.repo,
          head: values.head,
          apply: values.apply,
          format: parseRefineFormat(values.format),
          noTests: values['no-tests'],
          ...(values.base ? { base: values.base } : {}),
          ...(values.config ? { config: values.config } : {}),
          ...(values.db ? { db: values.db } : {}),
        },
        write,
      );
    }
    case 'init': {
      const { values } = parseArgs({
        args: rest,
        options: { ...HELP, repo: { type: 'string', default: '.' }, force: { type: 'boolean', default: false } },
        strict: true,
      });
      if (values.help) return help();
      const { runInit } = await import('./init.js');
      return runInit({ repo: values.repo, force: values.force }, write);
    }
    case 'demo': {
      const { values } = parseArgs({
        args: rest,
        options: { ...HELP, format: { type: 'string', short: 'f' }, keep: { type: 'boolean', default: false } },
        strict: true,
      });
      if (values.help) return help();
      const [{ runDemo }, { parseFormat }] = await Promise.all([import('./run-demo.js'), import('./check.js')]);
      return runDemo({ format: parseFormat(values.format), keep: values.keep }, write);
    }
    case 'worker': {
      const { values } = parseArgs({ args: rest, options: { ...HELP, concurrency: { type: 'string' } }, strict: true });
      if (values.help) return help();
      const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
      if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1))
        throw new InputError(`--concurrency must be a positive integer, got '${values.concurrency}'`);
      const { runGateWorker } = await import('../platforms/github/worker-entry.js');
      return runGateWorker(concurrency ? { concurrency } : {});
    }
    case 'dashboard': {
      const { values } = parseArgs({
        args: rest,
        options: { ...HELP, db: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } },
        strict: true,
      });
      if (values.help) return help();
      if (!values.db) throw new InputError('slopgate dashboard needs --db', 'name the store: --db .slopgate-data or --db postgres://…');
      const port = values.port === undefined ? 3080 : Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new InputError(`--port must be a port number, got '${values.port}'`);
      const { runDashboard } = await import('./dashboard.js');
      return runDashboard({ db: values.db, port, host: values.host ?? '127.0.0.1' }, write);
    }
    case 'schema': {
      const { values } = parseArgs({ args: rest, options: { ...HELP, format: { type: 'string', short: 'f' } }, strict: true });
      if (values.help) return help();
      if (values.format === 'markdown') {
        const { configReferenceMarkdown } = await import('../config/reference-table.js');
        write(configReferenceMarkdown());
        return 0;
      }
      if (values.format !== undefined && values.format !== 'json')
        throw new InputError(`unknown format '${values.format}'`, 'use json (the JSON Schema) or markdown (the reference table)');
      const { configJsonSchemaText } = await import('../config/json-schema.js');
      write(configJsonSchemaText());
      return 0;
    }
    default:
      throw new InputError(`unknown command '${command}'`, 'run slopgate --help');
  }
}
