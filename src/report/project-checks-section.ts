import type { ProjectCheckRecord } from '../core/report-sections.js';
import { isRecord } from '../core/is-record.js';
import { escapeCell } from './markdown-escape.js';
import { stripControl } from './format-helpers.js';

/**
 * The `checks` report section (G16): each check the project enforces that applied to the changed
 * files, where it is configured, what its findings weigh, and whether it ran or why not. A check
 * that did not run is listed as skipped with its cause, never as passed.
 */

const MAX_ROWS = 20;
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function row(v: unknown): ProjectCheckRecord | null {
  if (!isRecord(v) || typeof v.tool !== 'string' || typeof v.source !== 'string') return null;
  if ((v.status !== 'ran' && v.status !== 'partial' && v.status !== 'skipped') || (v.severity !== 'fail' && v.severity !== 'risk'))
    return null;
  const r: ProjectCheckRecord = {
    tool: clip(v.tool, 40),
    source: clip(v.source.split('\n')[0]!, 160),
    severity: v.severity,
    status: v.status,
    files: typeof v.files === 'number' && Number.isFinite(v.files) ? v.files : 0,
  };
  if (typeof v.reason === 'string' && v.reason) r.reason = clip(v.reason.split('\n')[0]!, 300);
  const found = foundOf(v.found);
  if (found) r.found = found;
  return r;
}

const count = (n: unknown) => (typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0);

function foundOf(v: unknown): ProjectCheckRecord['found'] {
  return isRecord(v) ? { fail: count(v.fail), risk: count(v.risk), nit: count(v.nit) } : undefined;
}

/** Tolerant reader (the section may come from an older or newer slopgate). */
function readChecks(section: unknown): ProjectCheckRecord[] {
  if (!isRecord(section) || !Array.isArray(section.checks)) return [];
  return section.checks
    .map(row)
    .filter((r): r is ProjectCheckRecord => r !== null)
    .slice(0, MAX_ROWS);
}

/**
 * What its run found: "no findings", or how many and how they weigh ("2 findings: 1 fail, 1 risk"). A
 * record of an older slopgate has no counts; then only what a finding of it would weigh is known.
 */
function foundText(r: ProjectCheckRecord): string {
  const found = r.found;
  if (!found) return `findings of it weigh ${r.severity}`;
  const parts = (['fail', 'risk', 'nit'] as const).filter((s) => found[s] > 0).map((s) => `${found[s]} ${s}`);
  const total = found.fail + found.risk + found.nit;
  return total === 0 ? 'no findings' : `${total} finding${total === 1 ? '' : 's'} (${parts.join(', ')})`;
}

const describe = (r: ProjectCheckRecord) =>
  r.status === 'ran'
    ? `ran on ${r.files} file${r.files === 1 ? '' : 's'}, ${foundText(r)}${r.reason ? `; ${r.reason}` : ''}`
    : r.status === 'partial'
      ? `partial, not a pass: ran on part of its ${r.files} file${r.files === 1 ? '' : 's'}, ${foundText(r)}; ${r.reason ?? 'the rest were not checked'}`
      : `skipped: ${r.reason ?? 'not run'}`;

/** Terminal lines (untrusted text stripped of control characters). */
export function projectChecksTextLines(section: unknown): string[] {
  const rows = readChecks(section);
  if (rows.length === 0) return [];
  return ["Project's own checks (G16)", ...rows.map((r) => stripControl(`  ${r.tool}: ${describe(r)} — ${r.source}`))];
}

/** Markdown block (every cell escaped). */
export function projectChecksMarkdown(section: unknown): string {
  const rows = readChecks(section);
  if (rows.length === 0) return '';
  const lines = rows.map((r) => `| ${escapeCell(r.tool)} | ${escapeCell(r.source)} | ${escapeCell(describe(r))} |`);
  return ['', "### Project's own checks (G16)", '', '| check | configured in | result |', '|---|---|---|', ...lines].join('\n') + '\n';
}
