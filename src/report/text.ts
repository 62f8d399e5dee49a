import { coverageTextLines } from './coverage-section.js';
import { isolationWarning } from './isolation-warning.js';
import type { Finding, Severity } from '../core/finding.js';
import type { Report } from '../core/report.js';
import { countBySeverity, decodeXmlEntities, formatNumber, groupByFile, plural, shortSha, stripControl } from './format-helpers.js';
import { dismissedText } from './dismissed-text.js';
import { nextStepText, roundText } from './next-step.js';
import type { HostKind } from '../core/host-kind.js';
import { readPsi, readSanctions, readTests } from './sections.js';
import { refineTextLines } from './refine-section.js';
import { projectChecksTextLines } from './project-checks-section.js';
import { qaSummaryLine } from './qa-section.js';
import { sincePushTextLines } from './since-push-section.js';

/** The terminal report: decision first, then findings by file, then the guard table and sections. */

type Paint = (code: string, text: string) => string;

const ANSI = { red: '31', yellow: '33', blue: '34', green: '32', dim: '2', bold: '1', cyan: '36' } as const;

function painter(color: boolean): Paint {
  return color ? (code, text) => `\u001b[${code}m${text}\u001b[0m` : (_code, text) => text;
}

const MARK: Record<Severity, { label: string; color: string }> = {
  fail: { label: '✖ FAIL', color: ANSI.red },
  risk: { label: '▲ RISK', color: ANSI.yellow },
  nit: { label: '· NIT ', color: ANSI.blue },
};

const OUTCOME_COLOR: Record<string, string> = {
  PASS: ANSI.green,
  SKIPPED: ANSI.dim,
  ADVISE: ANSI.yellow,
};

/** Untrusted text for the terminal: control characters removed, continuation lines indented. */
function safe(text: string, indent = ''): string {
  return stripControl(text).replace(/\r?\n/g, `\n${indent}`);
}

function header(report: Report, paint: Paint): string[] {
  const range = `${safe(report.base.ref)}..${safe(report.head.ref)} (${shortSha(report.base.sha)}..${shortSha(report.head.sha)})`;
  return [
    `${paint(ANSI.bold, `slopgate ${report.tool.version}`)}  ${safe(report.repo)}  ${range}`,
    paint(
      ANSI.dim,
      `${plural(report.files.length, 'file')} changed · ${plural(report.commits.length, 'commit')} · ${report.durationMs} ms`,
    ),
    ...(report.configSource ? [paint(ANSI.dim, `config: ${safe(report.configSource)}`)] : []),
  ];
}

function decisionLines(report: Report, paint: Paint, host: HostKind): string[] {
  const d = report.decision;
  const round = roundText(d.round, d.maxRounds, host);
  const counts = countBySeverity(report.findings);
  const color = OUTCOME_COLOR[d.outcome] ?? ANSI.red;
  return [
    `${paint(`${ANSI.bold};${color}`, d.outcome)} (${d.conclusion}) — ${safe(d.reason)}`,
    `  next: ${nextStepText(d.next, host)}`,
    paint(
      ANSI.dim,
      `  ${d.blocking} blocking · ${d.advisory} advisory${dismissedCount(report)} · ` +
        `fail ${counts.fail} / risk ${counts.risk} / nit ${counts.nit}${round ? ` · ${round}` : ''}`,
    ),
  ];
}

function dismissedCount(report: Report): string {
  const n = report.findings.filter((f) => f.dismissed).length;
  return n > 0 ? ` · ${n} dismissed` : '';
}

function findingLines(f: Finding, paint: Paint): string[] {
  const mark = MARK[f.severity];
  const where = f.line ? `line ${f.line}${f.endLine && f.endLine > f.line ? `-${f.endLine}` : ''}` : 'whole file';
  const meta = [safe(f.guard), safe(f.category), f.path ? where : '', f.commit ? `commit ${shortSha(f.commit)}` : '']
    .filter(Boolean)
    .join(' · ');
  const label = f.dismissed ? `${paint(ANSI.dim, mark.label)} ${paint(ANSI.dim, '(dismissed)')}` : paint(mark.color, mark.label);
  const out = [`  ${label} ${meta}`, `      ${safe(decodeXmlEntities(f.message), '      ')}`];
  if (f.dismissed) out.push(paint(ANSI.dim, `      ${safe(dismissedText(f.dismissed))}`));
  if (f.remediation) out.push(`      ${paint(ANSI.cyan, '→')} ${safe(decodeXmlEntities(f.remediation), '        ')}`);
  if (f.confirmedBy.length > 1) out.push(paint(ANSI.dim, `      confirmed by ${f.confirmedBy.map((c) => safe(c)).join(', ')}`));
  const s = f.suggestion;
  if (s && typeof s.replacement === 'string') {
    const lines = s.replacement.replace(/\n$/, '').split('\n');
    const shown = lines.slice(0, 8);
    const span = s.startLine === s.endLine ? `line ${s.startLine}` : `lines ${s.startLine}-${s.endLine}`;
    out.push(paint(ANSI.dim, `      suggested replacement for ${span}:`));
    for (const l of shown) out.push(`      ${paint(ANSI.green, '+')} ${safe(l)}`);
    if (lines.length > shown.length) out.push(paint(ANSI.dim, `        … ${plural(lines.length - shown.length, 'more line')}`));
  }
  return out;
}

function guardTable(report: Report, paint: Paint): string[] {
  if (report.guards.length === 0) return [];
  const rows = report.guards.map((g) => [
    g.status,
    safe(`${g.id} ${g.name}`),
    String(g.files),
    String(g.findings),
    String(g.ms),
    g.reason ? safe(g.reason).replace(/\n/g, ' ') : '',
  ]);
  const head = ['status', 'guard', 'files', 'findings', 'ms', 'note'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : i >= 2 && i <= 4 ? c.padStart(width[i]!) : c.padEnd(width[i]!)))
      .join('  ')
      .trimEnd();
  const statusColor: Record<string, string> = {
    pass: ANSI.green,
    fail: ANSI.red,
    risk: ANSI.yellow,
    nit: ANSI.blue,
    error: ANSI.red,
    skipped: ANSI.dim,
  };
  return [
    paint(ANSI.bold, 'Guards'),
    `  ${paint(ANSI.dim, line(head))}`,
    ...rows.map((r) => {
      const text = line(r);
      const status = r[0]!;
      return `  ${paint(statusColor[status] ?? ANSI.dim, status)}${text.slice(status.length)}`;
    }),
  ];
}

function psiLines(report: Report, paint: Paint): string[] {
  if (report.sections.psi === undefined) return [];
  const psi = readPsi(report.sections.psi);
  if (!psi) return [paint(ANSI.bold, 'Ψ-lite'), '  (section present but not readable)'];
  const score = psi.score === undefined ? 'n/a' : formatNumber(psi.score);
  const threshold = psi.threshold === undefined ? '' : ` (threshold ${formatNumber(psi.threshold)})`;
  const out = [`${paint(ANSI.bold, 'Ψ-lite')} ${score}${threshold}${psi.weakest ? ` · weakest file ${safe(psi.weakest)}` : ''}`];
  const files = [...psi.files].sort((a, b) => (a.score ?? Infinity) - (b.score ?? Infinity));
  for (const f of files.slice(0, 10)) {
    const parts = [f.score === undefined ? 'Ψ n/a' : `Ψ ${formatNumber(f.score)}`];
    if (f.gamma !== undefined) parts.push(`Γ ${formatNumber(f.gamma)}`);
    if (f.omega !== undefined) parts.push(`Ω ${formatNumber(f.omega)}`);
    out.push(`  ${parts.join('  ')}  ${safe(f.path)}`);
  }
  if (files.length > 10) out.push(paint(ANSI.dim, `  … ${plural(files.length - 10, 'more file')}`));
  return out;
}

function testLines(report: Report, paint: Paint): string[] {
  if (report.sections.tests === undefined) return [];
  const tests = readTests(report);
  if (!tests) return [];
  const out = [`${paint(ANSI.bold, 'Tests:')} ${safe(tests.headline)}`];
  for (const name of tests.regressed.slice(0, 10)) out.push(`  ${paint(ANSI.red, '✖')} ${safe(name)}`);
  if (tests.regressed.length > 10) out.push(paint(ANSI.dim, `  … ${plural(tests.regressed.length - 10, 'more regression')}`));
  for (const [k, v] of tests.details) out.push(paint(ANSI.dim, `  ${safe(k)}: ${safe(v).replace(/\n/g, ' ')}`));
  return out;
}

/** The Q&A phase: its counts, or that it did not run or crashed, and why (JSON and Markdown say the same). */
function qaLines(report: Report, paint: Paint): string[] {
  const line = qaSummaryLine(report.sections.qa, (t) => safe(t));
  if (!line) return [];
  const [label, rest] = [line.slice(0, 4), line.slice(4)];
  return [`${paint(ANSI.bold, label)}${rest}`];
}

function sanctionLines(report: Report, paint: Paint): string[] {
  const s = readSanctions(report);
  if (!s) return [];
  const out = [paint(ANSI.bold, 'Sanctions (G1)')];
  for (const a of s.allowed.slice(0, 20)) out.push(`  ${safe(a.path)} (${safe(a.category)}) let through: ${safe(a.allowedBy)}`);
  for (const n of s.notes.slice(0, 20)) out.push(`  ${safe(n).replace(/\n/g, ' ')}`);
  return out;
}

/** The terminal report; `host` (default: the CLI) decides the advice it gives. */
export function renderText(report: Report, opts: { color?: boolean; host?: HostKind } = {}): string {
  const paint = painter(opts.color ?? false);
  const warning = isolationWarning(report);
  const blocks: string[][] = [
    ...(warning ? [[paint(ANSI.red, warning)]] : []),
    header(report, paint),
    decisionLines(report, paint, opts.host ?? 'cli'),
    sincePushTextLines(report.sections.sincePush, report.findings),
  ];
  if (report.findings.length > 0) {
    const lines: string[] = [paint(ANSI.bold, `Findings (${report.findings.length})`)];
    for (const group of groupByFile(report.findings)) {
      lines.push(group.path ? paint(ANSI.bold, safe(group.path)) : paint(ANSI.bold, '(whole change, no single file)'));
      for (const f of group.findings) lines.push(...findingLines(f, paint));
    }
    blocks.push(lines);
  }
  blocks.push(
    guardTable(report, paint),
    psiLines(report, paint),
    testLines(report, paint),
    qaLines(report, paint),
    projectChecksTextLines(report.sections.checks),
    coverageTextLines(report.coverage).map((l) => safe(l)),
    sanctionLines(report, paint),
    refineTextLines(report.sections.refine),
  );
  return (
    blocks
      .filter((b) => b.length > 0)
      .map((b) => b.join('\n'))
      .join('\n\n') + '\n'
  );
}
