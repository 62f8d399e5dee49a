import { defaultConfig } from '../core/config-schema.js';
import { errorMessage } from '../core/errors.js';
import { gitMaybe } from '../core/git.js';
import type { Guard } from '../core/guard.js';
import { runGate } from '../gate/run-gate.js';
import { isBlocking } from '../routing/decide.js';
import type { Outcome } from '../core/decision.js';
import { mirrorDir, type CorpusPr } from './real-prs-corpus.js';

/**
 * The real-PR benchmark: gates every merged PR of the corpus with the static gate (no tests, links
 * offline, default config, as the App would with no `.github/slopgate.yml`) and sorts the outcomes.
 *
 * PASS and ADVISE let the PR through; SKIPPED never happens here (no draft, no ignored author).
 * Everything else (REFINE, RESEARCH, ASK_AUTHOR, ESCALATE, STUCK) is *blocking*: the check run fails
 * or asks for action. A run that throws is an *error* and counted apart.
 */
export type BenchVerdict = 'pass' | 'advise' | 'blocking' | 'error';

export interface BenchFinding {
  guard: string;
  category: string;
  severity: string;
  /** Counts toward a blocking decision (fail, or the stuck bucket). */
  blocking: boolean;
  path?: string;
  line?: number;
  message: string;
}

export interface BenchPrResult {
  repo: string;
  pr: number;
  language: string;
  base: string;
  head: string;
  files: number;
  verdict: BenchVerdict;
  outcome: Outcome | 'ERROR';
  /** Guards that errored (a guard-error finding), e.g. a timeout. */
  guardErrors: string[];
  /** The coverage gaps that made the run not verified (ADVISE instead of PASS). */
  notVerified?: string[];
  findings: BenchFinding[];
  error?: string;
  ms: number;
  /** Extra facts of the corpus entry (agent PRs: which agent, merged/reverted/unmerged). */
  labels?: Record<string, string>;
}

export interface BenchRepoRow {
  repo: string;
  language: string;
  prs: number;
  pass: number;
  advise: number;
  blocking: number;
  error: number;
}

export interface BenchResults {
  version: 1;
  createdAt: string;
  /** slopgate commit the numbers were measured on, when known. */
  slopgate?: string;
  total: BenchRepoRow;
  repos: BenchRepoRow[];
  /** Corpus repositories whose mirror was not found (not counted). */
  missing: string[];
  results: BenchPrResult[];
}

export function verdictOf(outcome: Outcome): BenchVerdict {
  if (outcome === 'PASS' || outcome === 'SKIPPED') return 'pass';
  if (outcome === 'ADVISE') return 'advise';
  return 'blocking';
}

export interface RunOptions {
  corpus: CorpusPr[];
  mirrors: string;
  guards: Guard[];
  /** Only these repos (owner/name). */
  only?: string[];
  onResult?: (r: BenchPrResult, done: number, total: number) => void;
}

/**
 * The PR author's login as GitHub would report it, read from the head commit: the login inside a
 * `<id>+<login>@users.noreply.github.com` address, or an app's `name[bot]`. A squash merge carries
 * the PR author; a merge commit's second parent is the PR's own last commit. Undefined otherwise.
 */
export async function headAuthor(dir: string, head: string): Promise<string | undefined> {
  const out = await gitMaybe(dir, ['log', '-1', '--format=%an%x00%ae', head]);
  const [name = '', email = ''] = (out ?? '').trim().split('\0');
  const login = /^\d+\+([^@]+)@users\.noreply\.github\.com$/i.exec(email)?.[1];
  if (login) return login;
  return name.endsWith('[bot]') ? name : undefined;
}

/** Gates one corpus PR on its mirror. Never throws: a crash becomes an `error` result. */
export async function gateOne(dir: string, pr: CorpusPr, guards: Guard[]): Promise<BenchPrResult> {
  const t0 = Date.now();
  const labels = { ...(pr.agent ? { agent: pr.agent } : {}), ...(pr.fate ? { fate: pr.fate } : {}) };
  const common = {
    repo: pr.repo,
    pr: pr.pr,
    language: pr.language,
    base: pr.base,
    head: pr.head,
    files: pr.files,
    ...(Object.keys(labels).length ? { labels } : {}),
  };
  try {
    const author = pr.author ?? (await headAuthor(dir, pr.head));
    const report = await runGate({
      repoDir: dir,
      base: pr.base,
      head: pr.head,
      repoName: pr.repo,
      config: defaultConfig(),
      guards,
      services: { tests: { enabled: false }, run: { repo: pr.repo, pr: pr.pr, ...(author ? { author } : {}) } },
    });
    const findings: BenchFinding[] = report.findings.map((f) => ({
      guard: f.guard,
      category: f.category,
      severity: f.severity,
      blocking: isBlocking(f, false),
      ...(f.path ? { path: f.path } : {}),
      ...(f.line ? { line: f.line } : {}),
      message: f.message,
    }));
    return {
      ...common,
      files: report.files.length,
      verdict: verdictOf(report.decision.outcome),
      outcome: report.decision.outcome,
      guardErrors: report.guards.filter((g) => g.status === 'error').map((g) => `${g.id}: ${g.reason ?? 'error'}`),
      ...(report.decision.notVerified?.length ? { notVerified: report.decision.notVerified } : {}),
      findings,
      ms: Date.now() - t0,
    };
  } catch (err) {
    return { ...common, verdict: 'error', outcome: 'ERROR', guardErrors: [], findings: [], error: errorMessage(err), ms: Date.now() - t0 };
  }
}

/** Runs the corpus PR by PR (sequentially: the machine is shared, and numbers must not depend on speed). */
export async function runCorpus(opts: RunOptions): Promise<BenchResults> {
  const only = opts.only;
  const wanted = only?.length ? opts.corpus.filter((p) => only.includes(p.repo)) : opts.corpus;
  const missing = new Set<string>();
  const runnable: { pr: CorpusPr; dir: string }[] = [];
  for (const pr of wanted) {
    const dir = mirrorDir(opts.mirrors, pr.repo);
    if (!dir) missing.add(pr.repo);
    else runnable.push({ pr, dir });
  }
  const results: BenchPrResult[] = [];
  for (const { pr, dir } of runnable) {
    const r = await gateOne(dir, pr, opts.guards);
    results.push(r);
    opts.onResult?.(r, results.length, runnable.length);
  }
  const repos = tabulate(results);
  return {
    version: 1,
    createdAt: new Date().toISOString(),
    total: totalRow(repos),
    repos,
    missing: [...missing],
    results,
  };
}

export function tabulate(results: BenchPrResult[]): BenchRepoRow[] {
  const rows = new Map<string, BenchRepoRow>();
  for (const r of results) {
    let row = rows.get(r.repo);
    if (!row) {
      row = { repo: r.repo, language: r.language, prs: 0, pass: 0, advise: 0, blocking: 0, error: 0 };
      rows.set(r.repo, row);
    }
    row.prs++;
    row[r.verdict]++;
  }
  return [...rows.values()];
}

function totalRow(rows: BenchRepoRow[]): BenchRepoRow {
  const t: BenchRepoRow = { repo: 'TOTAL', language: '', prs: 0, pass: 0, advise: 0, blocking: 0, error: 0 };
  for (const r of rows) {
    t.prs += r.prs;
    t.pass += r.pass;
    t.advise += r.advise;
    t.blocking += r.blocking;
    t.error += r.error;
  }
  return t;
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : '-');
const oneLine = (s: string, max = 240) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** The human report: per-repo table, every blocking finding, ADVISE findings by category. */
export function renderResults(res: BenchResults): string {
  const out: string[] = [];
  const w = Math.max(24, ...res.repos.map((r) => r.repo.length));
  const row = (r: BenchRepoRow) =>
    `${r.repo.padEnd(w)} ${r.language.padEnd(6)} ${String(r.prs).padStart(4)} ${String(r.pass).padStart(5)} ${String(r.advise).padStart(6)} ${String(r.blocking).padStart(8)} ${String(r.error).padStart(5)}`;
  out.push(
    `${'repo'.padEnd(w)} ${'lang'.padEnd(6)} ${'PRs'.padStart(4)} ${'PASS'.padStart(5)} ${'ADVISE'.padStart(6)} ${'blocking'.padStart(8)} ${'error'.padStart(5)}`,
  );
  for (const r of res.repos) out.push(row(r));
  out.push(row(res.total));
  const t = res.total;
  out.push('');
  out.push(
    `blocked ${t.blocking}/${t.prs} (${pct(t.blocking, t.prs)}, target < 1 %); ADVISE ${t.advise}/${t.prs} (${pct(t.advise, t.prs)}, target < 25 %); errors ${t.error}`,
  );
  if (res.missing.length) out.push(`skipped (no mirror under the mirror root; fetch them first): ${res.missing.join(', ')}`);

  const blocking = res.results.filter((r) => r.verdict === 'blocking');
  out.push('', `## Blocking PRs (${blocking.length})`);
  for (const r of blocking) {
    out.push(`${r.repo}#${r.pr} ${r.outcome} (head ${r.head.slice(0, 10)})`);
    for (const f of r.findings.filter((f) => f.blocking)) {
      out.push(`  ${f.guard} ${f.category} ${f.path ?? '-'}${f.line ? `:${f.line}` : ''} — ${oneLine(f.message)}`);
    }
  }
  const errors = res.results.filter((r) => r.verdict === 'error' || r.guardErrors.length);
  if (errors.length) {
    out.push('', `## Errors (${errors.length})`);
    for (const r of errors) out.push(`${r.repo}#${r.pr}: ${oneLine(r.error ?? r.guardErrors.join('; '))}`);
  }

  const advise = res.results.filter((r) => r.verdict === 'advise');
  const byCat = new Map<string, { findings: number; prs: Set<string> }>();
  for (const r of advise) {
    for (const f of r.findings) {
      const key = `${f.guard} ${f.category} (${f.severity})`;
      const e = byCat.get(key) ?? { findings: 0, prs: new Set<string>() };
      e.findings++;
      e.prs.add(`${r.repo}#${r.pr}`);
      byCat.set(key, e);
    }
  }
  out.push('', `## ADVISE PRs (${advise.length}): findings by guard and category`);
  for (const [key, e] of [...byCat].sort((a, b) => b[1].prs.size - a[1].prs.size || b[1].findings - a[1].findings)) {
    out.push(
      `  ${String(e.prs.size).padStart(3)} PRs ${String(e.findings).padStart(4)} findings  ${key}  e.g. ${[...e.prs].slice(0, 3).join(', ')}`,
    );
  }
  return out.join('\n') + '\n';
}

/** Verdicts per label value (e.g. per agent-PR fate): what the gate blocks among PRs that were reverted or never merged. */
export function renderByLabel(res: BenchResults, label: string): string {
  const rows = new Map<string, Record<BenchVerdict, number>>();
  for (const r of res.results) {
    const key = r.labels?.[label];
    if (!key) continue;
    const row = rows.get(key) ?? { pass: 0, advise: 0, blocking: 0, error: 0 };
    row[r.verdict]++;
    rows.set(key, row);
  }
  if (rows.size === 0) return '';
  const out = [`${label.padEnd(12)}  PRs  PASS ADVISE blocking error`];
  for (const [key, v] of rows) {
    const n = v.pass + v.advise + v.blocking + v.error;
    out.push(
      `${key.padEnd(12)} ${String(n).padStart(4)} ${String(v.pass).padStart(5)} ${String(v.advise).padStart(6)} ${String(v.blocking).padStart(8)} ${String(v.error).padStart(5)}`,
    );
  }
  return out.join('\n') + '\n';
}
