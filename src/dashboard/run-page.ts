import { z } from 'zod';
import { isRecord } from '../core/is-record.js';
import type { Report } from '../core/report.js';
import type { StoredRun } from '../store/runs.js';
import { duration, html } from './html.js';
import { badge, checkLink, layout, prLink, type Links } from './layout.js';

// The page of one stored run: its decision, findings, coverage record and timings.

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
