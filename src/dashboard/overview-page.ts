import type { QueueStats } from '../queue/types.js';
import type { FlakyTestSummary } from '../store/flaky-tests.js';
import { age, duration, html, jsonScript, percent, type Html } from './html.js';
import { badge, checkLink, layout, prLink, type Links } from './layout.js';
import type { AttentionItem, RecentRun, RepoOverview, RuleQuality, SuiteTiming } from './queries.js';

// The dashboard's front page: outcomes per repository, what needs attention, rule quality, the test suites, recent runs.

const OUTCOME_ORDER = ['PASS', 'ADVISE', 'REFINE', 'RESEARCH', 'ASK_AUTHOR', 'ESCALATE', 'STUCK', 'SKIPPED', 'unknown'];

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
