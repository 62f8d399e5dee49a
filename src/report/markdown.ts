import { coverageMarkdown } from './coverage-section.js';
import type { HostKind } from '../core/host-kind.js';
import { nextStepText, roundText } from './next-step.js';
import { isolationWarning } from './isolation-warning.js';
import type { Finding, Severity } from '../core/finding.js';
import type { Report } from '../core/report.js';
import { clip, countBySeverity, decodeXmlEntities, firstLine, formatNumber, plural, shortSha, stripControl } from './format-helpers.js';
import { fitBlocks } from './markdown-budget.js';
import { codeBlock, codeSpan, escapeCell, escapeInline, escapeInlineParagraph, escapeMarkdown, inertText } from './markdown-escape.js';
import { dismissedText } from './dismissed-text.js';
import { readPsi, readSanctions, readTests } from './sections.js';
import { qaBlockMarkdown, qaSummaryLine } from './qa-section.js';
import { refineMarkdown } from './refine-section.js';
import { projectChecksMarkdown } from './project-checks-section.js';
import { sincePushLine, sincePushMarkdown } from './since-push-section.js';

/** GitHub's limit for a check run's `output.summary` and `output.text`, in characters. */
export const CHECK_RUN_OUTPUT_LIMIT = 65_535;

export interface CheckRunOutput {
  title: string;
  summary: string;
  text: string;
}

export interface CheckRunOptions {
  /** The host the report is read in, which decides the advice it gives (default: the App). */
  host?: HostKind;
  /** Cap for summary and text each (default: GitHub's 65,535). */
  maxChars?: number;
  /** Link to the full report (shown in the summary). */
  detailsUrl?: string;
}

const SEVERITY_ICON: Record<Severity, string> = { fail: '🔴', risk: '🟡', nit: '🔵' };

const OUTCOME_ICON: Record<string, string> = {
  PASS: '✅',
  ADVISE: '⚠️',
  SKIPPED: '⏭️',
  REFINE: '❌',
  RESEARCH: '❓',
  ASK_AUTHOR: '❓',
  ESCALATE: '🧑‍⚖️',
  STUCK: '🛑',
};

/**
 * One-line title, e.g. "2 blocking · Ψ 0.41 · tests: 1 regression", or "all clear". Plain text, but it
 * quotes the decision's reason (PR text can reach it), so it is inert.
 */
export function checkRunTitle(report: Report): string {
  return inertText(titleText(report));
}

function titleText(report: Report): string {
  const d = report.decision;
  const reason = firstLine(stripControl(d.reason), 120);
  if (d.outcome === 'SKIPPED') return `skipped: ${reason}`;
  const parts: string[] = [];
  if (d.blocking > 0) parts.push(`${d.blocking} blocking`);
  if (d.advisory > 0) parts.push(`${d.advisory} advisory`);
  const tests = readTests(report);
  const untested = tests ? !tests.compared : false;
  if (parts.length === 0 && d.notVerified?.length) parts.push('not verified');
  else if (parts.length === 0)
    parts.push(d.outcome === 'PASS' ? (untested ? 'no findings' : 'all clear') : `${d.outcome.toLowerCase()}: ${reason}`);
  const psi = report.sections.psi === undefined ? null : readPsi(report.sections.psi);
  if (psi?.score !== undefined) parts.push(`Ψ ${formatNumber(psi.score)}`);
  if (tests)
    parts.push(tests.compared ? `tests: ${firstLine(stripControl(tests.headline), 60)}` : firstLine(stripControl(tests.short), 200));
  return clip(parts.join(' · '), 250);
}

function safeUrl(url: string): string {
  return encodeURI(decodeURIComponentSafe(url)).replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29'));
}

function decodeURIComponentSafe(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

function decisionSection(report: Report, host: HostKind, detailsUrl?: string): string {
  const d = report.decision;
  const round = roundText(d.round, d.maxRounds, host);
  const lines = [
    `## ${OUTCOME_ICON[d.outcome] ?? '❌'} ${d.outcome} · ${d.conclusion}`,
    '',
    `**Why:** ${escapeInline(decodeXmlEntities(stripControl(d.reason)).replace(/\s+/g, ' '))}  `,
    `**Next:** ${nextStepText(d.next, host)}  `,
    `${round ? `${round.replace(/^r/, 'R')} · ` : ''}${d.blocking} blocking · ${d.advisory} advisory · ` +
      `\`${shortSha(report.base.sha)}\`..\`${shortSha(report.head.sha)}\` · ${plural(report.files.length, 'file')} · ${plural(report.commits.length, 'commit')}`,
  ];
  if (report.configSource) lines.push('', `Config: ${escapeInline(stripControl(report.configSource))}`);
  if (report.sections.sincePush) lines.push('', sincePushLine(report.sections.sincePush));
  const qa = qaSummaryLine(report.sections.qa, (t) => escapeInline(t));
  if (qa) lines.push('', qa);
  if (detailsUrl) lines.push('', `[Full report](${safeUrl(detailsUrl)})`);
  return lines.join('\n') + '\n';
}

function guardSection(report: Report): string {
  if (report.guards.length === 0) return '';
  const rows = report.guards.map(
    (g) =>
      `| ${escapeCell(`${g.id} ${g.name}`)} | ${escapeCell(g.status)} | ${g.files} | ${g.findings} | ${g.ms} | ${escapeCell(firstLine(g.reason ?? '', 200))} |`,
  );
  return (
    ['', '### Guards', '', '| guard | status | files | findings | ms | note |', '|---|---|--:|--:|--:|---|', ...rows].join('\n') + '\n'
  );
}

function psiSection(report: Report): string {
  if (report.sections.psi === undefined) return '';
  const psi = readPsi(report.sections.psi);
  if (!psi) return '\n### Ψ-lite\n\nThe Ψ section is present but not in a readable shape.\n';
  const head = [
    '',
    `### Ψ-lite ${psi.score === undefined ? 'n/a' : formatNumber(psi.score)}${psi.threshold === undefined ? '' : ` (threshold ${formatNumber(psi.threshold)})`}`,
  ];
  if (psi.weakest) head.push('', `Weakest file: ${escapeMarkdown(psi.weakest)}`);
  const files = [...psi.files].sort((a, b) => (a.score ?? Infinity) - (b.score ?? Infinity));
  if (files.length === 0) return head.join('\n') + '\n';
  const n = (v: number | undefined) => (v === undefined ? '' : formatNumber(v));
  const rows = files.slice(0, 20).map((f) => `| ${escapeCell(f.path)} | ${n(f.score)} | ${n(f.gamma)} | ${n(f.omega)} |`);
  const tail = files.length > 20 ? ['', `… ${plural(files.length - 20, 'more file')} (the lowest scores are listed)`] : [];
  return [...head, '', '| file | Ψ | Γ | Ω |', '|---|--:|--:|--:|', ...rows, ...tail].join('\n') + '\n';
}

function testsSection(report: Report): string {
  const tests = readTests(report);
  if (!tests) return '';
  const lines = ['', `### Tests: ${escapeInline(firstLine(decodeXmlEntities(tests.short), 300))}`];
  // What to do (the remedy after the cause) goes below the heading.
  if (tests.short !== tests.headline) lines.push('', escapeInline(tests.headline.replace(/\s+/g, ' ')));
  if (tests.regressed.length) {
    lines.push('');
    for (const name of tests.regressed.slice(0, 20)) lines.push(`- ${escapeCell(decodeXmlEntities(name))}`);
    if (tests.regressed.length > 20) lines.push(`- … ${plural(tests.regressed.length - 20, 'more regression')}`);
  }
  if (tests.details.length)
    lines.push(
      '',
      ...tests.details.map(([k, v]) => `- ${escapeCell(k)}: ${escapeInline(firstLine(decodeXmlEntities(v), 200), { cell: true })}`),
    );
  return lines.join('\n') + '\n';
}

/** The G1 sanctions of the run: what they let through, which apply, which lapsed, which were ignored. */
function sanctionsSection(report: Report): string {
  const s = readSanctions(report);
  if (!s) return '';
  const lines = ['', '### Sanctions (G1)', ''];
  for (const a of s.allowed.slice(0, 20)) {
    lines.push(`- ${codeSpan(a.path)} (${escapeMarkdown(a.category)}) let through: ${escapeInline(firstLine(a.allowedBy, 200))}`);
  }
  for (const n of s.notes.slice(0, 20)) lines.push(`- ${escapeInline(firstLine(n, 600))}`);
  return lines.join('\n') + '\n';
}

function where(f: Finding): string {
  if (!f.path) return '(whole change)';
  return escapeCell(f.line ? `${f.path}:${f.line}` : f.path);
}

function findingRow(f: Finding): string {
  const icon = SEVERITY_ICON[f.severity];
  const severity = f.dismissed ? `~~${escapeCell(f.severity)}~~ dismissed` : escapeCell(f.severity);
  const what = escapeInline(firstLine(decodeXmlEntities(f.message), 200), { cell: true });
  const why = f.dismissed ? ` — _${escapeCell(clip(dismissedText(f.dismissed), 300))}_` : '';
  return `| ${icon} ${severity} | ${escapeCell(f.guard)} | ${escapeCell(f.category)} | ${where(f)} | ${what}${why} |\n`;
}

function dismissedNote(report: Report): string {
  const n = report.findings.filter((f) => f.dismissed).length;
  return n > 0 ? `; ${n} dismissed` : '';
}

function findingsHead(report: Report): string {
  const c = countBySeverity(report.findings);
  if (report.findings.length === 0) return '\n### Findings\n\nNone.\n';
  return [
    '',
    `### Findings (${report.findings.length}: ${c.fail} fail, ${c.risk} risk, ${c.nit} nit${dismissedNote(report)})`,
    '',
    '| severity | guard | category | where | what |',
    '|---|---|---|---|---|',
    '',
  ].join('\n');
}

function langOf(path: string): string {
  const ext = /\.([A-Za-z0-9]{1,10})$/.exec(path)?.[1];
  return ext ? ext.toLowerCase() : '';
}

function findingDetail(f: Finding): string {
  const icon = SEVERITY_ICON[f.severity];
  const place = f.path
    ? `${escapeMarkdown(f.path)}${f.line ? ` line ${f.line}${f.endLine && f.endLine > f.line ? `–${f.endLine}` : ''}` : ''}`
    : 'whole change';
  const parts = [
    `### ${icon} ${escapeMarkdown(f.severity)}${f.dismissed ? ' (dismissed)' : ''} · ${escapeMarkdown(f.category)} · ${place}`,
    '',
    escapeInlineParagraph(clip(decodeXmlEntities(f.message), 4000)),
  ];
  if (f.dismissed) parts.push('', `**Dismissed:** ${escapeMarkdown(clip(dismissedText(f.dismissed), 600))}`);
  if (f.remediation) parts.push('', `**What to do:** ${escapeInlineParagraph(clip(decodeXmlEntities(f.remediation), 2000))}`);
  const s = f.suggestion;
  if (s && typeof s.replacement === 'string') {
    const lines = s.replacement.replace(/\n$/, '').split('\n');
    const shown = clip(lines.slice(0, 60).join('\n'), 6000);
    const span = s.startLine === s.endLine ? `line ${s.startLine}` : `lines ${s.startLine}–${s.endLine}`;
    parts.push('', `Suggested replacement for ${span} of ${escapeMarkdown(s.path)}:`, '', codeBlock(shown, langOf(s.path)));
    if (lines.length > 60) parts.push('', `… ${plural(lines.length - 60, 'more line')} in the suggestion`);
  }
  const meta = [`guard ${escapeMarkdown(f.guard)}`, `finding \`${f.id.replace(/[^0-9a-zA-Z]/g, '')}\``];
  if (f.commit) meta.push(`commit \`${shortSha(f.commit).replace(/[^0-9a-fA-F]/g, '')}\``);
  if (f.confirmedBy.length > 1) meta.push(`confirmed by ${f.confirmedBy.map(escapeMarkdown).join(', ')}`);
  parts.push('', `_${meta.join(' · ')}_`, '', '');
  return parts.join('\n');
}

/** Where the findings a capped check run leaves out are found, in the host's terms. */
const COMPLETE_LIST: Record<HostKind, string> = {
  cli: 'Run `slopgate check --format json` for the complete list.',
  action: 'The job summary has more; set the `sarif-file` input for the complete list.',
  app: 'Run `slopgate check --format json` on the branch for the complete list.',
};

function moreLine(kind: 'summary' | 'text', max: number, host: HostKind) {
  return (n: number) =>
    `\n… ${plural(n, 'more finding')} not shown: GitHub caps the check ${kind} at ${max.toLocaleString('en-US')} characters. ` +
    `${COMPLETE_LIST[host]}\n`;
}

/** Title, summary and text of the check run, each within GitHub's limits. */
export function renderCheckRun(report: Report, opts: CheckRunOptions = {}): CheckRunOutput {
  const max = Math.max(1, Math.floor(opts.maxChars ?? CHECK_RUN_OUTPUT_LIMIT));
  const host = opts.host ?? 'app';
  const warning = isolationWarning(report);
  const head =
    (warning ? `> **${escapeMarkdown(warning)}**\n\n` : '') +
    decisionSection(report, host, opts.detailsUrl) +
    sincePushMarkdown(report.sections.sincePush, report.findings) +
    guardSection(report) +
    psiSection(report) +
    testsSection(report) +
    projectChecksMarkdown(report.sections.checks) +
    coverageMarkdown(report.coverage) +
    sanctionsSection(report) +
    refineMarkdown(report.sections.refine) +
    findingsHead(report);
  const summary = fitBlocks(head, report.findings.map(findingRow), moreLine('summary', max, host), max).text;
  const text =
    report.findings.length === 0
      ? ''
      : fitBlocks('## Findings in detail\n\n', report.findings.map(findingDetail), moreLine('text', max, host), max).text;
  return { title: checkRunTitle(report), summary, text };
}

/** The check run as one Markdown document (what `--format markdown` prints). */
export function renderMarkdown(report: Report, opts: CheckRunOptions = {}): string {
  const out = renderCheckRun(report, opts);
  const warning = isolationWarning(report);
  const qa = qaBlockMarkdown(report.sections.qa);
  return (
    [
      ...(warning ? [`**${escapeMarkdown(warning)}**`, ''] : []),
      `# slopgate: ${escapeMarkdown(out.title)}`,
      '',
      out.summary.trimEnd(),
      '',
      ...(qa ? [qa, ''] : []),
      out.text.trimEnd(),
    ]
      .join('\n')
      .trimEnd() + '\n'
  );
}
