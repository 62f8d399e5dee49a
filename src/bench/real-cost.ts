import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseJsonAs } from '../core/parse-data.js';
import { committedConfigAt } from '../config/committed-config-at.js';
import { runGate } from '../gate/run-gate.js';
import { GUARDS } from '../guards/index.js';
import { openStore } from '../store/open-store.js';
import { storeServices } from '../store/services.js';
import type { Store } from '../store/store.js';
import { depCacheOptionsFromEnv, ENTRY_CONTENT } from '../testgate/index.js';
import { plainRunVerdict } from './plain-run.js';
import { mirrorDir, mirrorRoot } from './real-prs-corpus.js';

/**
 * The gate's cost on a real project's pull request once its dependencies and its baseline are cached
 * (issue 17's target: at most 1.10× one plain run of the suite). For each case of bench/real-cost.json:
 * one gate run to warm the caches, then rounds that alternate a plain run of the suite (the case's
 * command, in a fresh export of the head, with the environment the gate installed), the CLI's whole
 * `check` (every guard, tests on, no `--db`: a new process that loads its modules and reads its
 * baseline from the files the CLI keeps) and the same gate as the App's worker runs it (in a process
 * that has loaded them and keeps its store open: every guard, the config read from the base, the
 * store's baselines), so that load from other processes hits all three alike.
 */
const DIST = dirname(dirname(fileURLToPath(import.meta.url)));
const CASES = join(DIST, '..', 'bench', 'real-cost.json');

const costCase = z.object({
  repo: z.string(),
  pr: z.number(),
  base: z.string(),
  head: z.string(),
  /** The suite as a developer runs it, in the root of the head's tree. */
  plain: z.string(),
});
type CostCase = z.infer<typeof costCase>;

const gateReport = z.object({
  decision: z.object({ outcome: z.string() }),
  sections: z.object({
    tests: z
      .object({
        candidate: z.object({ total: z.number(), durationMs: z.number() }).optional(),
        baseline: z.object({ cached: z.boolean().optional() }).optional(),
        dependencies: z.object({ head: z.object({ key: z.string(), ecosystem: z.string() }).optional() }).optional(),
      })
      .optional(),
  }),
});

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function gate(mirror: string, c: CostCase, baselines: string): { ms: number; report: z.infer<typeof gateReport> } {
  const args = [join(DIST, 'bin', 'slopgate.js'), 'check', '--repo', mirror, '--base', c.base, '--head', c.head, '--format', 'json'];
  const t0 = performance.now();
  // As people run it: no store, the baselines in files (here a folder of the bench's own).
  const env = { ...process.env, SLOPGATE_BASELINE_CACHE_DIR: baselines };
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 << 20, env });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1)
    throw new Error(`slopgate check on ${c.repo}#${c.pr} exited ${String(r.status)}: ${r.stderr.slice(0, 800)}`);
  return { ms, report: parseJsonAs(gateReport, r.stdout, `the report of ${c.repo}#${c.pr}`) };
}

/** PATH for the plain run: the environment the gate installed for the head (a virtual environment's bin). */
function plainPath(key: string | undefined): string {
  const path = process.env.PATH ?? '/usr/bin:/bin';
  if (!key) return path;
  const root = depCacheOptionsFromEnv().root;
  const venv = ['shared', 'tree'].map((scope) => join(root, scope, key, ENTRY_CONTENT, 'venv', 'bin')).find((v) => existsSync(v));
  return venv ? `${venv}:${path}` : path;
}

/** The gate as the App's worker runs it for a PR: config from the base, every guard, the store's services. */
async function workerGate(mirror: string, c: CostCase, store: Store, warm = true): Promise<number> {
  const t0 = performance.now();
  const { config } = await committedConfigAt(mirror, c.base);
  const run = { repo: c.repo, pr: c.pr };
  const report = await runGate({
    repoDir: mirror,
    base: c.base,
    head: c.head,
    repoName: c.repo,
    config,
    guards: GUARDS,
    services: { tests: { repo: c.repo }, ...storeServices(store, run) },
  });
  const ms = performance.now() - t0;
  if (warm && report.sections.tests?.baseline?.cached !== true)
    throw new Error(`the worker's gate on ${c.repo}#${String(c.pr)} ran its baseline: not a warm run`);
  return ms;
}

async function caseLine(mirror: string, c: CostCase, rounds: number): Promise<string> {
  const baselines = mkdtempSync(join(tmpdir(), 'slopgate-bench-cost-baselines-'));
  const workerDb = mkdtempSync(join(tmpdir(), 'slopgate-bench-cost-worker-db-'));
  const tree = mkdtempSync(join(tmpdir(), 'slopgate-bench-cost-tree-'));
  try {
    const warm = gate(mirror, c, baselines);
    const tests = warm.report.sections.tests;
    if (!tests?.candidate)
      return `${c.repo}#${c.pr}: the gate ran no suite at the head (${warm.report.decision.outcome}); nothing to compare`;
    execFileSync('sh', ['-c', `git -C "$1" archive "$2" | tar -x -C "$3"`, 'sh', mirror, c.head, tree]);
    const env = { ...process.env, PATH: plainPath(tests.dependencies?.head?.key) };
    const plain: number[] = [];
    const gated: number[] = [];
    const suite: number[] = [];
    const worker: number[] = [];
    let cached = true;
    let plainNote = '';
    // The worker keeps a store of its own open (an embedded store serves one process at a time).
    const store = await openStore({ dataDir: workerDb });
    await workerGate(mirror, c, store, false);
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      // Output kept (not shown): whether the suite ran is read from its summary when it exits non-zero.
      const r = spawnSync('sh', ['-c', `exec 2>&1; ${c.plain}`], { cwd: tree, env, encoding: 'utf8', maxBuffer: 64 << 20 });
      plain.push(performance.now() - t0);
      const verdict = plainRunVerdict({ status: r.status, signal: r.signal, output: r.stdout });
      if (!verdict.ran) throw new Error(`the plain run of ${c.repo}#${c.pr} (${c.plain}) did not run the suite: ${verdict.reason}`);
      if (verdict.note) plainNote = verdict.note;
      const g = gate(mirror, c, baselines);
      gated.push(g.ms);
      suite.push(g.report.sections.tests?.candidate?.durationMs ?? 0);
      cached &&= g.report.sections.tests?.baseline?.cached === true;
      worker.push(await workerGate(mirror, c, store));
    }
    await store.close();
    // Each round's gate against the plain run beside it: a shared machine's speed drifts between rounds.
    const paired = (runs: number[]) => median(runs.map((ms, i) => ms / plain[i]!)).toFixed(2);
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    return (
      `${c.repo}#${c.pr} (${String(tests.candidate.total)} tests; dependencies cached, baseline ${cached ? 'cached' : 'NOT cached in every round'}), ` +
      `medians of ${String(rounds)} rounds: plain run ${s(median(plain))}${plainNote ? ` (${plainNote})` : ''}; whole gate (CLI) ${s(median(gated))}, ${paired(gated)}× ` +
      `(target ≤ 1.10×), the sandboxed suite inside it ${s(median(suite))}; the same gate in the App's worker ` +
      `${s(median(worker))}, ${paired(worker)}× (each round's gate against that round's plain run)`
    );
  } finally {
    rmSync(baselines, { recursive: true, force: true });
    rmSync(workerDb, { recursive: true, force: true });
    rmSync(tree, { recursive: true, force: true });
  }
}

/** Lines for `npm run bench` (BENCH_ONLY=real; BENCH_ROUNDS, default 5). */
export async function realCostLines(rounds = Number(process.env.BENCH_ROUNDS ?? 5)): Promise<string[]> {
  const cases = parseJsonAs(z.array(costCase), readFileSync(CASES, 'utf8'), CASES);
  const lines: string[] = [];
  for (const c of cases) {
    const mirror = mirrorDir(mirrorRoot(), c.repo);
    if (!mirror)
      lines.push(`${c.repo}#${c.pr}: skipped, no clone at ${join(mirrorRoot(), c.repo.replace('/', '+'))} (set SLOPGATE_MIRRORS)`);
    else lines.push(`real PR ${await caseLine(mirror, c, rounds)}`);
  }
  return lines;
}
