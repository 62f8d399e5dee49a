import { z } from 'zod';
import { isRecord } from '../core/is-record.js';
import type { Report } from '../core/report.js';
import type { QueueStats } from '../queue/types.js';
import type { FlakyTestSummary } from '../store/flaky-tests.js';
import type { StoredRun } from '../store/runs.js';
import { age, duration, html, jsonScript, percent, type Html } from './html.js';
import type { AttentionItem, RecentRun, RepoOverview, RuleQuality, SuiteTiming } from './queries.js';

/** Where PRs and check runs live on the code host (`https://github.com`); absent for a CLI store. */
export interface Links {
  web?: string;
}

const OUTCOME_ORDER = ['PASS', 'ADVISE', 'REFINE', 'RESEARCH', 'ASK_AUTHOR', 'ESCALATE', 'STUCK', 'SKIPPED', 'unknown'];

function layout(title: string, who: string | null, body: Html, base: string): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · slopgate</title>
        <link rel="stylesheet" href="${base}/assets/uPlot.min.css" />
        <link rel="stylesheet" href="${base}/assets/dashboard.css" />
      </head>
      <body>
        <header>
          <a class="brand" href="${base}">slopgate</a>
          <span class="muted">read-only dashboard</span
          >${who ? html`<span class="who">signed in as <b>${who}</b> · <a href="${base}/logout">sign out</a></span>` : ''}
        </header>
        <main>${body}</main>
        <script src="${base}/assets/uPlot.iife.min.js"></script>
        <script src="${base}/assets/charts.js"></script>
      </body>
    </html> `.text;
}

function prLink(links: Links, repo: string, pr: number | null): Html {
  if (pr === null) return html`<span class="muted">no PR</span>`;
  if (!links.web || !/^[\w.-]+\/[\w.-]+$/.test(repo)) return html`${repo}#${pr}`;
  return html`<a href="${links.web}/${repo}/pull/${pr}" rel="noreferrer">${repo}#${pr}</a>`;
}

function checkLink(links: Links, repo: string, checkRunId: number | null): Html {
  if (checkRunId === null || !links.web) return html`<span class="muted">–</span>`;
  return html`<a href="${links.web}/${repo}/runs/${checkRunId}" rel="noreferrer">check run</a>`;
}

function badge(kind: string): Html {
  const cls = kind === 'STUCK' || kind === 'action_required' ? 'badge red' : kind === 'PASS' ? 'badge green' : 'badge';
  return html`<span class="${cls}" data-kind="${kind}">${kind}</span>`;
}

export interface OverviewData {
  days: number;
  repos: RepoOverview[];
  attention: AttentionItem[];
  rules: RuleQuality[];
  flaky: FlakyTestSummary[];
  flakyRule: { prs: number };
  suites: SuiteTiming[];
  recent: RecentRun[];
  queue: QueueStats | null;
  now: Date;
}

function chartData(repo: RepoOverview, days: number, now: Date): { days: string[]; series: { outcome: string; counts: number[] }[] } {
  const labels: string[] = [];
  for (let i = days - 1; i >= 0; i--) labels.push(new Date(now.getTime() - i * 86_400_000).toISOString().slice(0, 10));
  const outcomes = OUTCOME_ORDER.filter((o) => Object.values(repo.perDay).some((d) => (d[o] ?? 0) > 0));
  return { days: labels, series: outcomes.map((outcome) => ({ outcome, counts: labels.map((d) => repo.perDay[d]?.[outcome] ?? 0) })) };
}

function overviewSection(d: OverviewData, base: string): Html {
  const q = d.queue;
  const queue = q
    ? html`<p class="queue">
        Queue: <b data-metric="pending">${q.pending}</b> waiting,
        <b data-metric="running">${q.running}</b>
        running${q.oldestPendingAt ? html`, oldest waiting ${age(q.oldestPendingAt, d.now)}` : ''}; this process runs ${q.concurrency} at
        once${q.workers !== undefined ? html`, ${q.workers} workers hold a lease` : ''}.
      </p>`
    : html`<p class="queue muted">No queue in this process (a CLI store).</p>`;
  const cards = d.repos.map((r, i) => {
    const rate = r.testsEnabled ? percent(r.testsRan / r.testsEnabled) : '–';
    return html`<section class="card repo" data-repo="${r.repo}">
      <h3>${r.repo}</h3>
      <dl>
        <dt>runs</dt>
        <dd>${r.runs}</dd>
        <dt>median gate time</dt>
        <dd>${duration(r.medianMs)}</dd>
        <dt>p95 gate time</dt>
        <dd>${duration(r.p95Ms)}</dd>
        <dt>test gate ran</dt>
        <dd title="the suite ran at the base and at the head / runs with the test gate enabled">
          ${rate} (${r.testsRan}/${r.testsEnabled})
        </dd>
      </dl>
      <div class="chart" data-chart="chart-${i}" aria-label="runs per day by outcome"></div>
      ${jsonScript(`chart-${i}`, chartData(r, Math.min(d.days, 31), d.now))}
    </section>`;
  });
  return html`<h2>Overview <span class="muted">(last ${d.days} days)</span></h2>
    ${queue}
    <div class="cards">${cards.length ? cards : html`<p class="muted">No runs in this window.</p>`}</div>
    <p class="muted">
      <a href="${base}?days=7">7 days</a> · <a href="${base}?days=14">14 days</a> · <a href="${base}?days=30">30 days</a> ·
      <a href="${base}?days=90">90 days</a>
    </p>`;
}

function attentionSection(d: OverviewData, links: Links, base: string): Html {
  const rows = d.attention.map(
    (a) =>
      html`<tr class="attention" data-kind="${a.kind}" data-pr="${a.repo}#${a.pr}">
        <td>${badge(a.kind)}</td>
        <td>${prLink(links, a.repo, a.pr)}</td>
        <td title="${a.since.toISOString()}">${age(a.since, d.now)}</td>
        <td class="reason">${a.reason}</td>
        <td>${a.runId ? html`<a href="${base}/runs/${a.runId}">run</a>` : ''} ${checkLink(links, a.repo, a.checkRunId)}</td>
      </tr>`,
  );
  return html`<h2 id="attention">PRs needing a person</h2>
    ${
      rows.length
        ? html`<table>
            <thead>
              <tr>
                <th>state</th>
                <th>pull request</th>
                <th>waiting</th>
                <th>why</th>
                <th>links</th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`
        : html`<p class="muted">None: no PR is stuck, waiting on its author or a maintainer, or behind an outage.</p>`
    }`;
}

function rulesSection(d: OverviewData): Html {
  const rows = d.rules.map(
    (r) =>
      html`<tr class="rule" data-rule="${r.guard}/${r.category}">
        <td>${r.guard}</td>
        <td>${r.category}</td>
        <td class="num">${r.raised}</td>
        <td class="num">${r.blocking}</td>
        <td class="num">${r.dismissed.inline}</td>
        <td class="num">${r.dismissed.command}</td>
        <td class="num">${r.dismissed.label}</td>
        <td class="num rate${r.rate >= 0.5 ? ' noisy' : ''}">${percent(r.rate)}</td>
      </tr>`,
  );
  return html`<h2 id="rules">Rule quality</h2>
    <p class="muted">
      Each finding counted once per PR. Dismissal rate: dismissed inline, by command or by label / raised — a high one marks a noisy rule.
    </p>
    ${
      rows.length
        ? html`<table>
            <thead>
              <tr>
                <th>guard</th>
                <th>category</th>
                <th>raised</th>
                <th>blocking</th>
                <th>inline</th>
                <th>command</th>
                <th>label</th>
                <th>dismissal rate</th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`
        : html`<p class="muted">No findings in this window.</p>`
    }`;
}

function testsSection(d: OverviewData, links: Links, base: string): Html {
  const flaky = d.flaky.map(
    (f) =>
      html`<tr class="flaky" data-test="${f.test}">
        <td><code>${f.test}</code></td>
        <td>${f.repo}</td>
        <td class="num">${f.flips}</td>
        <td>${f.known ? badge('known flaky') : html`<span class="muted">watching</span>`}</td>
        <td>
          ${f.lastPrs.map((n, i) => html`${i ? ', ' : ''}${prLink(links, f.repo, n)}`)}${f.onBase ? html`${f.lastPrs.length ? ', ' : ''}base` : ''}
        </td>
      </tr>`,
  );
  const suites = d.suites.map(
    (s) =>
      html`<tr class="suite">
        <td>${s.repo}</td>
        <td><code>${s.command}</code></td>
        <td class="num">${s.runs}</td>
        <td class="num">${duration(s.medianMs)}</td>
        <td class="num"><a href="${base}/runs/${s.slowestRun}">${duration(s.maxMs)}</a></td>
      </tr>`,
  );
  return html`<h2 id="flaky">Flaky tests</h2>
    <p class="muted">
      Tests that failed and then passed on a re-run of the same commit. Known flaky: flipped on a base, or on ${d.flakyRule.prs} or more PRs
      (the default rule; a repository's tests.flaky may differ).
    </p>
    ${
      flaky.length
        ? html`<table>
            <thead>
              <tr>
                <th>test</th>
                <th>repository</th>
                <th>flips</th>
                <th>status</th>
                <th>last PRs</th>
              </tr>
            </thead>
            <tbody>
              ${flaky}
            </tbody>
          </table>`
        : html`<p class="muted">No test flipped in this window.</p>`
    }
    <h2 id="suites">Slowest suites</h2>
    ${
      suites.length
        ? html`<table>
            <thead>
              <tr>
                <th>repository</th>
                <th>command</th>
                <th>runs</th>
                <th>median at the head</th>
                <th>slowest</th>
              </tr>
            </thead>
            <tbody>
              ${suites}
            </tbody>
          </table>`
        : html`<p class="muted">No suite ran in this window.</p>`
    }`;
}

function recentSection(d: OverviewData, links: Links, base: string): Html {
  const rows = d.recent.map(
    (r) =>
      html`<tr>
        <td><a href="${base}/runs/${r.id}">${r.id.slice(0, 8)}</a></td>
        <td>${prLink(links, r.repo, r.pr)}</td>
        <td><code>${r.headSha.slice(0, 7)}</code></td>
        <td>${badge(r.outcome ?? 'unknown')}</td>
        <td class="num">${duration(r.durationMs)}</td>
        <td>${r.finishedAt ? age(r.finishedAt, d.now) : ''}</td>
      </tr>`,
  );
  return html`<h2 id="runs">Recent runs</h2>
    ${
      rows.length
        ? html`<table>
            <thead>
              <tr>
                <th>run</th>
                <th>pull request</th>
                <th>head</th>
                <th>outcome</th>
                <th>gate time</th>
                <th>ago</th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`
        : html`<p class="muted">No runs.</p>`
    }`;
}

export function overviewPage(d: OverviewData, links: Links, who: string | null, base: string): string {
  return layout(
    'Overview',
    who,
    html`${overviewSection(d, base)}${attentionSection(d, links, base)}${rulesSection(d)}${testsSection(d, links, base)}${recentSection(d, links, base)}`,
    base,
  );
}

const coverageEntry = z.object({
  check: z.string(),
  scope: z.string().optional(),
  status: z.string(),
  reason: z.string().optional(),
});

/** The report's coverage record (issue 30), when the report has one; read loosely so that older reports show none. */
function coverageOf(report: Report): z.infer<typeof coverageEntry>[] | null {
  const raw: unknown = report;
  if (!isRecord(raw)) return null;
  const sections = raw.sections;
  const found = raw.coverage ?? (isRecord(sections) ? sections.coverage : undefined);
  const parsed = z.array(coverageEntry).safeParse(found);
  return parsed.success ? parsed.data : null;
}

export function runPage(run: StoredRun, checkRunId: number | null, links: Links, who: string | null, base: string): string {
  const report = run.report;
  if (!report)
    return layout(
      'Run',
      who,
      html`<h2>Run ${run.id}</h2>
        <p>This run stored no report.</p>`,
      base,
    );
  const d = report.decision;
  const coverage = coverageOf(report);
  const tests = report.sections.tests;
  const findings = report.findings.map(
    (f) =>
      html`<tr class="finding" data-finding="${f.id}">
        <td>${f.guard}</td>
        <td>${f.category}</td>
        <td>${badge(f.severity)}</td>
        <td>${f.path ? html`<code>${f.path}${f.line ? `:${f.line}` : ''}</code>` : ''}</td>
        <td class="message">${f.message}</td>
        <td>${f.dismissed ? html`dismissed (${f.dismissed.source}) by ${f.dismissed.by}: ${f.dismissed.reason}` : ''}</td>
      </tr>`,
  );
  const maxMs = Math.max(1, ...report.guards.map((g) => g.ms), tests?.candidate?.durationMs ?? 0, tests?.baseline?.durationMs ?? 0);
  const stage = (name: string, ms: number, note: string) =>
    html`<tr class="stage">
      <td>${name}</td>
      <td class="num">${duration(ms)}</td>
      <td><div class="bar" data-width="${Math.max(1, Math.round((ms / maxMs) * 100))}"></div></td>
      <td class="muted">${note}</td>
    </tr>`;
  const stages = [
    ...report.guards.map((g) => stage(`${g.id} ${g.name}`, g.ms, g.status + (g.reason ? `: ${g.reason}` : ''))),
    ...(tests?.baseline
      ? [stage('tests at the base', tests.baseline.durationMs, tests.baseline.cached ? 'from the cache' : tests.baseline.status)]
      : []),
    ...(tests?.candidate ? [stage('tests at the head', tests.candidate.durationMs, tests.candidate.status)] : []),
  ];
  const body = html`<h2>Run <code>${run.id}</code></h2>
    <p>
      ${prLink(links, run.repo, run.pr)} · head <code>${run.headSha.slice(0, 12)}</code> on base <code>${run.baseSha.slice(0, 12)}</code> ·
      ${run.trigger} · ${run.finishedAt ? run.finishedAt.toISOString() : 'unfinished'} · ${checkLink(links, run.repo, checkRunId)}
    </p>
    <h3>Decision</h3>
    <p class="decision">
      ${badge(d.outcome)} conclusion <b>${d.conclusion}</b>, round ${d.round} of ${d.maxRounds}, tier
      ${d.tier}${d.source ? ` (${d.source})` : ''}: ${d.reason}
    </p>
    <p>${d.blocking} blocking, ${d.advisory} advisory; gate time ${duration(report.durationMs)}.</p>
    <h3>Coverage</h3>
    ${
      coverage
        ? html`<table>
            <thead>
              <tr>
                <th>check</th>
                <th>scope</th>
                <th>status</th>
                <th>reason</th>
              </tr>
            </thead>
            <tbody>
              ${coverage.map(
                (c) =>
                  html`<tr class="coverage">
                    <td>${c.check}</td>
                    <td>${c.scope ?? ''}</td>
                    <td>${badge(c.status)}</td>
                    <td>${c.reason ?? ''}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : html`<p class="muted">This report has no coverage record.</p>`
    }
    <h3>Findings (${report.findings.length})</h3>
    ${
      findings.length
        ? html`<table>
            <thead>
              <tr>
                <th>guard</th>
                <th>category</th>
                <th>severity</th>
                <th>where</th>
                <th>message</th>
                <th>dismissed</th>
              </tr>
            </thead>
            <tbody>
              ${findings}
            </tbody>
          </table>`
        : html`<p class="muted">No findings.</p>`
    }
    <h3>Timings per stage</h3>
    <table class="stages">
      <thead>
        <tr>
          <th>stage</th>
          <th>time</th>
          <th></th>
          <th>status</th>
        </tr>
      </thead>
      <tbody>
        ${stages}
      </tbody>
    </table>
    <p><a href="${base}">back to the overview</a></p>`;
  return layout(`Run ${run.id.slice(0, 8)}`, who, body, base);
}

export function loginPage(opts: { github: boolean; message?: string; next?: string }, base: string): string {
  const body = html`<h2>Sign in</h2>
    ${opts.message ? html`<p class="notice">${opts.message}</p>` : ''}
    <p>This dashboard is for the people the operator allows.</p>
    ${opts.github ? html`<p><a class="button" href="${base}/auth/github">Sign in with GitHub</a> <span class="muted">(members of an account slopgate is installed on)</span></p>` : ''}
    <form method="post" action="${base}/login">
      <label>Operator token <input type="password" name="token" autocomplete="current-password" required /></label>
      <button type="submit">Sign in</button>
    </form>`;
  return layout('Sign in', null, body, base);
}

export function messagePage(title: string, message: string, base: string): string {
  return layout(
    title,
    null,
    html`<h2>${title}</h2>
      <p>${message}</p>
      <p><a href="${base}/login">sign in</a></p>`,
    base,
  );
}
