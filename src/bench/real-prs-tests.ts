import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseJsonAs } from '../core/parse-data.js';
import { mirrorDir, mirrorRoot } from './real-prs-corpus.js';

/**
 * `npm run bench:real:tests`: the real-PR corpus with the test gate ON, as a new user runs it. Every PR
 * of bench/real-prs-tests.json (one per repository, with the truth written before slopgate saw it) is
 * gated by the real CLI in a child process (`check --format json`), and the tests section is read:
 * did the suite run at the base and at the head, how many tests, what the dependency stage did and
 * how long it took, why a side did not run, and what blocked. With `--warm` every PR is gated a second
 * time on the same dependency cache and the same store (`--db`), so the baseline is cached: the
 * steady-state cost of a push, which runs the head's suite only.
 */

/** Listed in the order the corpus files write it, which is the order zod gives it back in (and the rows copy it). */
const truthSchema = z.looseObject({
  defect: z.string().optional(),
  expect: z.string().optional(),
  decision: z.string(),
  tests: z.enum(['runs', 'services', 'off']),
  note: z.string().optional(),
});

/** One entry of the corpus file; other fields an entry carries (the agent, the maintainer's words) are not read. */
const testsCorpusPrSchema = z.object({
  repo: z.string(),
  pr: z.number(),
  base: z.string(),
  head: z.string(),
  language: z.string(),
  title: z.string(),
  /**
   * Written before slopgate saw the PR. `tests`: the suite should run (`runs`), needs an outside
   * service (`services`), or is not worth running for this entry (`off`: gated with `--no-tests`).
   * The agent-rejected corpus also records the defect the maintainer named and the check expected to
   * name it.
   */
  truth: truthSchema,
});
type TestsCorpusPr = z.infer<typeof testsCorpusPrSchema>;

/** A finding as the CLI's JSON report gives it and a row keeps it. */
const findingSchema = z.object({
  guard: z.string(),
  category: z.string(),
  severity: z.string(),
  path: z.string().optional(),
  line: z.number().optional(),
  message: z.string(),
});

/**
 * One gated PR in the output file, which a later run reads back to regate some rows and keep the rest.
 * The fields are listed in the order `row()` writes them, which is the order zod gives them back in.
 */
const rowSchema = z.looseObject({
  repo: z.string(),
  pr: z.number(),
  truth: truthSchema,
  pass: z.enum(['cold', 'warm']),
  ranBase: z.boolean(),
  ranHead: z.boolean(),
  baseTests: z.number(),
  headTests: z.number(),
  decision: z.string(),
  blocking: z.array(z.object({ guard: z.string(), category: z.string(), path: z.string().optional(), message: z.string() })),
  /** Every finding, blocking or not, so a reader can tell whether the named defect is among them. */
  findings: z.array(findingSchema),
  /** The CLI ran with --no-tests (truth.tests is `off`, or `--runs-only` and the suite does not run). */
  testsOff: z.boolean().optional(),
  seconds: z.number(),
  error: z.string().optional(),
  /** The base's results came from the baseline cache (the warm pass). */
  baselineCached: z.boolean().optional(),
  /** How long the head's suite ran in the sandbox. */
  headSuiteSeconds: z.number().optional(),
  skipped: z.string().optional(),
  deps: z.object({ base: z.string(), head: z.string(), installMs: z.number().optional() }).optional(),
  toolchain: z.record(z.string(), z.string()).optional(),
  /** Guards that did not run to the end (skipped or errored), with the reason: a quiet guard is not a pass. */
  guardsNotRun: z.array(z.object({ id: z.string(), status: z.string(), reason: z.string().optional() })).optional(),
  head: z.string().optional(),
});
type Row = z.infer<typeof rowSchema>;

/** The fields of the CLI's JSON report (`check --format json`, core/report.ts) that a row is built from. */
const testSideSchema = z.object({ status: z.string(), total: z.number(), durationMs: z.number() });
const dependencyStageSchema = z.object({ status: z.string(), ecosystem: z.string().optional(), installMs: z.number().optional() });
const cliReportSchema = z.object({
  sections: z.object({
    tests: z
      .object({
        baseline: testSideSchema.extend({ cached: z.boolean() }).optional(),
        candidate: testSideSchema.optional(),
        skipped: z.string().optional(),
        notRun: z.string().optional(),
        dependencies: z.object({ base: dependencyStageSchema, head: dependencyStageSchema }).optional(),
        toolchain: z.record(z.string(), z.string()).optional(),
      })
      .optional(),
  }),
  decision: z.object({ outcome: z.string() }),
  findings: z.array(findingSchema),
  guards: z.array(z.object({ id: z.string(), status: z.string(), reason: z.string().optional() })),
});
type CliReport = z.infer<typeof cliReportSchema>;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** How to start the CLI: the built one by default; a `.ts` entry (tests) runs through tsx. */
function cliArgs(cli: string): string[] {
  return cli.endsWith('.ts') ? ['--import', 'tsx', cli] : [cli];
}

function gate(
  cli: string,
  mirror: string,
  pr: TestsCorpusPr,
  cacheDir: string,
  db: string | undefined,
  timeoutMs: number,
  noTests: boolean,
): Promise<{ report?: CliReport; error?: string; seconds: number }> {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [
        ...cliArgs(cli),
        'check',
        '--repo',
        mirror,
        '--base',
        pr.base,
        '--head',
        pr.head,
        '--format',
        'json',
        ...(db ? ['--db', db] : []),
        ...(noTests ? ['--no-tests'] : []),
      ],
      {
        env: { ...process.env, SLOPGATE_DEPS_CACHE_DIR: cacheDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const seconds = Math.round((Date.now() - started) / 100) / 10;
      try {
        done({ report: parseJsonAs(cliReportSchema, out, "the CLI's JSON report"), seconds });
      } catch {
        done({ error: `exit ${code}: ${err.trim().split('\n').slice(-3).join(' / ').slice(0, 400)}`, seconds });
      }
    });
  });
}

function row(pr: TestsCorpusPr, pass: Row['pass'], r: { report?: CliReport; error?: string; seconds: number }, noTests: boolean): Row {
  const base: Row = {
    repo: pr.repo,
    pr: pr.pr,
    truth: pr.truth,
    pass,
    ranBase: false,
    ranHead: false,
    baseTests: 0,
    headTests: 0,
    decision: 'ERROR',
    blocking: [],
    findings: [],
    ...(noTests ? { testsOff: true } : {}),
    seconds: r.seconds,
  };
  if (!r.report) return { ...base, error: r.error ?? 'no report' };
  const t = r.report.sections.tests;
  const d = r.report.decision;
  const blocking = ['PASS', 'ADVISE', 'SKIPPED'].includes(d.outcome)
    ? []
    : r.report.findings
        .filter((f) => f.severity === 'fail' || d.outcome !== 'ADVISE')
        .map((f) => ({ guard: f.guard, category: f.category, ...(f.path ? { path: f.path } : {}), message: f.message.slice(0, 300) }));
  return {
    ...base,
    ranBase: t?.baseline?.status === 'ok',
    ranHead: t?.candidate?.status === 'ok',
    baseTests: t?.baseline?.total ?? 0,
    headTests: t?.candidate?.total ?? 0,
    ...(t?.baseline ? { baselineCached: t.baseline.cached } : {}),
    ...(t?.candidate ? { headSuiteSeconds: Math.round(t.candidate.durationMs / 100) / 10 } : {}),
    ...(t?.skipped ? { skipped: t.skipped } : t?.notRun ? { skipped: t.notRun } : {}),
    ...(t?.dependencies
      ? {
          deps: {
            base: `${t.dependencies.base.ecosystem ?? ''} ${t.dependencies.base.status}`.trim(),
            head: `${t.dependencies.head.ecosystem ?? ''} ${t.dependencies.head.status}`.trim(),
            ...(t.dependencies.base.installMs !== undefined ? { installMs: t.dependencies.base.installMs } : {}),
          },
        }
      : {}),
    ...(t?.toolchain ? { toolchain: t.toolchain } : {}),
    decision: d.outcome,
    blocking,
    findings: r.report.findings.map((f) => ({
      guard: f.guard,
      category: f.category,
      severity: f.severity,
      ...(f.path ? { path: f.path } : {}),
      ...(f.line !== undefined ? { line: f.line } : {}),
      message: f.message.slice(0, 1000),
    })),
    guardsNotRun: r.report.guards
      .filter((g) => (g.status === 'skipped' || g.status === 'error') && !/^(not selected|no changed files in scope)/.test(g.reason ?? ''))
      .map((g) => ({ id: g.id, status: g.status, ...(g.reason ? { reason: g.reason.slice(0, 300) } : {}) })),
  };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string', default: 'bench/real-prs-tests.json' },
      mirrors: { type: 'string', default: mirrorRoot() },
      out: { type: 'string', default: 'bench/results/real-prs-tests.json' },
      cache: { type: 'string', default: join(process.env.TMPDIR ?? '/tmp', 'slopgate-bench-deps') },
      repo: { type: 'string', multiple: true },
      warm: { type: 'boolean', default: false },
      // Gate with tests only the entries whose suite runs (truth.tests === 'runs'); the rest with --no-tests.
      'runs-only': { type: 'boolean', default: false },
      pr: { type: 'string', multiple: true },
      cli: { type: 'string', default: join(ROOT, 'dist', 'bin', 'slopgate.js') },
      'timeout-min': { type: 'string', default: '60' },
    },
  });
  if (!existsSync(values.mirrors)) {
    console.log(`bench:real:tests skipped: no mirror directory at ${values.mirrors} (set SLOPGATE_MIRRORS)`);
    return 0;
  }
  const corpus = parseJsonAs(z.array(testsCorpusPrSchema), readFileSync(resolve(values.corpus), 'utf8'), values.corpus).filter(
    (p) =>
      (!values.repo?.length || values.repo.includes(p.repo)) &&
      (!values.pr?.length || values.pr.includes(`${p.repo}#${p.pr}`) || values.pr.includes(`${p.repo}@${p.head.slice(0, 12)}`)),
  );
  const rows: Row[] = existsSync(values.out)
    ? parseJsonAs(z.object({ rows: z.array(rowSchema) }), readFileSync(values.out, 'utf8'), values.out).rows
    : [];
  const timeoutMs = Number(values['timeout-min']) * 60_000;
  for (const pr of corpus) {
    const mirror = mirrorDir(values.mirrors, pr.repo);
    if (!mirror) {
      console.error(`${pr.repo}: no mirror, skipped`);
      continue;
    }
    for (const pass of values.warm ? (['cold', 'warm'] as const) : (['cold'] as const)) {
      // With --warm both passes share a store, so the second finds the first's baseline.
      const db = values.warm ? join(values.cache, 'store') : undefined;
      const noTests = pr.truth.tests === 'off' || (values['runs-only'] && pr.truth.tests !== 'runs');
      const r = { ...row(pr, pass, await gate(values.cli, mirror, pr, values.cache, db, timeoutMs, noTests), noTests), head: pr.head };
      // A corpus may hold several revisions of one PR (agent-rejected does): a row is one head.
      const i = rows.findIndex((x) => x.repo === r.repo && x.pr === r.pr && x.pass === r.pass && (x.head ?? r.head) === r.head);
      if (i >= 0) rows[i] = r;
      else rows.push(r);
      console.error(
        `${pr.repo}#${pr.pr}@${pr.head.slice(0, 7)} ${pass}: base ${r.ranBase ? `${r.baseTests} tests` : 'no'} · head ${r.ranHead ? `${r.headTests} tests` : 'no'} · ${r.decision} · ${r.seconds} s${r.skipped ? ` · ${r.skipped.slice(0, 160)}` : ''}${r.error ? ` · ${r.error}` : ''}`,
      );
      mkdirSync(dirname(resolve(values.out)), { recursive: true });
      writeFileSync(values.out, JSON.stringify({ rows }, null, 1) + '\n');
    }
  }
  const cold = rows.filter((r) => r.pass === 'cold');
  const eligible = cold.filter((r) => r.truth.tests === 'runs');
  const both = eligible.filter((r) => r.ranBase && r.ranHead);
  const blocked = cold.filter((r) => r.blocking.length > 0 || r.decision === 'ERROR');
  console.log(
    `PRs gated: ${cold.length}; tests need no outside service: ${eligible.length}; ran at base and head: ${both.length} (${eligible.length ? Math.round((100 * both.length) / eligible.length) : 0} %); blocked or error: ${blocked.length}`,
  );
  for (const w of rows) {
    const suite = w.headSuiteSeconds;
    if (w.pass !== 'warm' || !w.baselineCached || !suite) continue;
    console.log(
      `${w.repo}#${w.pr} warm: the gate took ${w.seconds} s; the head's suite ran ${suite} s of it (${(w.seconds / suite).toFixed(2)}×)`,
    );
  }
  return 0;
}

process.exitCode = await main();
