import type { CoverageEntry, CoverageStatus } from '../core/coverage.js';
import { isRecord } from '../core/is-record.js';
import { escapeCell } from './markdown-escape.js';
import { stripControl } from './format-helpers.js';

/**
 * The report's coverage record (core/coverage.ts) as text, Markdown and SARIF notifications: what was
 * checked, on which scope, and what was not and why. Gaps (partial, not run) come first.
 */

const MAX_ROWS = 30;
const STATUSES: readonly CoverageStatus[] = ['not-run', 'partial', 'skipped', 'ran'];
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Tolerant reader (a stored report may predate the record, or hold anything). */
function readCoverage(value: unknown): CoverageEntry[] {
  if (!Array.isArray(value)) return [];
  const out: CoverageEntry[] = [];
  for (const v of value) {
    if (!isRecord(v) || typeof v.check !== 'string' || typeof v.scope !== 'string') continue;
    const status = STATUSES.find((s) => s === v.status);
    if (!status) continue;
    const e: CoverageEntry = { check: clip(v.check, 60), scope: clip(stripControl(v.scope.split('\n')[0] ?? ''), 200), status };
    if (typeof v.reason === 'string' && v.reason) e.reason = clip(stripControl(v.reason.split('\n')[0] ?? ''), 400);
    out.push(e);
  }
  return out.sort((a, b) => STATUSES.indexOf(a.status) - STATUSES.indexOf(b.status));
}

function counts(rows: CoverageEntry[]): string {
  return STATUSES.map((s) => [s, rows.filter((r) => r.status === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s === 'not-run' ? 'not run' : s}`)
    .join(', ');
}

const label = (s: CoverageStatus) => (s === 'not-run' ? 'NOT RUN' : s === 'partial' ? 'PARTIAL' : s);

/** Terminal lines: the counts, then each gap and skip (and the checks that ran, when few). */
export function coverageTextLines(value: unknown): string[] {
  const rows = readCoverage(value);
  if (rows.length === 0) return [];
  const shown = rows.filter((r) => r.status !== 'ran').length ? rows.filter((r) => r.status !== 'ran' || rows.length <= 12) : rows;
  const out = [`Coverage: ${counts(rows)}`];
  for (const r of shown.slice(0, MAX_ROWS)) out.push(`  ${label(r.status)} ${r.check} — ${r.scope}${r.reason ? `: ${r.reason}` : ''}`);
  if (shown.length > MAX_ROWS) out.push(`  … ${shown.length - MAX_ROWS} more (see the JSON report)`);
  return out;
}

/** Markdown block (every cell escaped). */
export function coverageMarkdown(value: unknown): string {
  const rows = readCoverage(value);
  if (rows.length === 0) return '';
  const lines = rows
    .slice(0, MAX_ROWS)
    .map((r) => `| ${escapeCell(r.check)} | ${escapeCell(r.scope)} | ${escapeCell(label(r.status))} | ${escapeCell(r.reason ?? '')} |`);
  const more = rows.length > MAX_ROWS ? ['', `… ${rows.length - MAX_ROWS} more rows (see the JSON report)`] : [];
  return (
    ['', `### Coverage: ${escapeCell(counts(rows))}`, '', '| check | scope | status | why |', '|---|---|---|---|', ...lines, ...more].join(
      '\n',
    ) + '\n'
  );
}

/** One SARIF notification per gap (partial or not run): what did not cover its scope, and why. */
export function coverageNotifications(value: unknown): { level: 'warning'; message: { text: string }; descriptor: { id: string } }[] {
  return readCoverage(value)
    .filter((r) => r.status === 'partial' || r.status === 'not-run')
    .slice(0, MAX_ROWS)
    .map((r) => ({
      level: 'warning' as const,
      message: {
        text: `not verified: ${r.check} on ${r.scope} ${r.status === 'partial' ? 'ran on part of its input' : 'did not run'}${r.reason ? ` — ${r.reason}` : ''}`,
      },
      descriptor: { id: `slopgate/coverage/${r.check.split(' ')[0] ?? r.check}` },
    }));
}
