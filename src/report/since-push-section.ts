import type { Finding } from '../core/finding.js';
import type { GoneFinding, SincePushSection } from '../core/report-sections.js';
import { plural, shortSha, stripControl } from './format-helpers.js';
import { codeSpan, escapeInline } from './markdown-escape.js';

/**
 * The `sincePush` report section: what is new, fixed and still open against the previous gated head
 * of the same PR. Every place shown is at the commit it names: this head's findings at this head, a
 * fixed finding at the previous head, which is named next to its line.
 */

const MAX_LISTED = 20;

const hex = (sha: string) => shortSha(sha).replace(/[^0-9a-fA-F]/g, '');

/** "1 fixed · 1 new · 2 still open" (and what went with the base or was dismissed, when anything did). */
export function sincePushCounts(s: SincePushSection): string {
  const fixed = s.fixed.filter((f) => f.gone === 'fixed').length;
  const base = s.fixed.length - fixed;
  const parts = [`${fixed} fixed`, `${s.new.length} new`, `${s.stillOpen.length} still open`];
  if (base > 0) parts.push(`${base} gone with the new base`);
  if (s.dismissed.length > 0) parts.push(`${s.dismissed.length} dismissed`);
  return parts.join(' · ');
}

/** One Markdown line for the decision block and the PR body: "Since `abc1234` (the last gated push): …". */
export function sincePushLine(s: SincePushSection): string {
  return `Since \`${hex(s.previous.headSha)}\` (the last gated push): ${sincePushCounts(s)}`;
}

/** How the two heads relate, in words; empty for a plain push on top of the previous head. */
function historyNote(s: SincePushSection): string {
  const prev = `\`${hex(s.previous.headSha)}\``;
  const parts: string[] = [];
  if (s.history === 'rewritten') parts.push(`The branch was force-pushed or rebased since ${prev}.`);
  if (s.mergeBaseMoved) parts.push(`This head is compared against its new merge-base, not the one ${prev} was gated against.`);
  if (s.lineMapping === 'nearest') {
    parts.push(`${prev} is no longer available, so findings were matched by kind and nearest place rather than through the diff.`);
  }
  return parts.join(' ');
}

function goneWhere(f: GoneFinding, prevSha: string): string {
  if (f.path === undefined) return `the whole change at \`${prevSha}\``;
  return `${codeSpan(f.path)}${f.line !== undefined ? ` line ${f.line}` : ''} at \`${prevSha}\``;
}

function currentWhere(f: Finding): string {
  if (f.path === undefined) return 'the whole change';
  return `${codeSpan(f.path)}${f.line !== undefined ? ` line ${f.line}` : ''}`;
}

function listed<T>(items: T[], line: (item: T) => string): string[] {
  const out = items.slice(0, MAX_LISTED).map(line);
  if (items.length > MAX_LISTED) out.push(`- … ${plural(items.length - MAX_LISTED, 'more')}`);
  return out;
}

/** The check run's block (Markdown; every PR-controlled text escaped). */
export function sincePushMarkdown(s: SincePushSection | undefined, findings: Finding[]): string {
  if (!s) return '';
  const prevSha = hex(s.previous.headSha);
  const lines = ['', `### Since the last push (\`${prevSha}\`)`, '', sincePushCounts(s)];
  const note = historyNote(s);
  if (note) lines.push('', note);
  const fixed = s.fixed.filter((f) => f.gone === 'fixed');
  const base = s.fixed.filter((f) => f.gone === 'base');
  const gone = (f: GoneFinding) =>
    `- ${escapeInline(f.severity)} · ${escapeInline(f.guard)} · ${codeSpan(f.category)} · ${goneWhere(f, prevSha)}: ${escapeInline(f.message)}`;
  if (fixed.length) lines.push('', '**Fixed**', '', ...listed(fixed, gone));
  if (base.length) lines.push('', '**Gone with the new base** (the PR no longer changes these files)', '', ...listed(base, gone));
  const byId = new Map(findings.map((f) => [f.id, f]));
  const added = s.new.flatMap((id) => byId.get(id) ?? []);
  if (added.length) {
    lines.push(
      '',
      '**New**',
      '',
      ...listed(
        added,
        (f) =>
          `- ${escapeInline(f.severity)} · ${escapeInline(f.guard)} · ${codeSpan(f.category)} · ${currentWhere(f)}: ${escapeInline(f.message.split('\n', 1)[0] ?? '')}`,
      ),
    );
  }
  return lines.join('\n') + '\n';
}

/** Terminal lines (PR-controlled text stripped of control characters). */
export function sincePushTextLines(s: SincePushSection | undefined, findings: Finding[]): string[] {
  if (!s) return [];
  const prevSha = hex(s.previous.headSha);
  const out = [`Since the last push (${prevSha}): ${sincePushCounts(s)}`];
  const note = historyNote(s).replace(/`/g, '');
  if (note) out.push(`  ${note}`);
  const one = (t: string) => stripControl(t).replace(/\s+/g, ' ').trim();
  for (const f of s.fixed.slice(0, MAX_LISTED)) {
    const where = f.path === undefined ? 'whole change' : `${f.path}${f.line !== undefined ? ` line ${f.line}` : ''}`;
    out.push(
      `  ${f.gone === 'fixed' ? 'fixed' : 'gone with the base'}: ${one(where)} at ${prevSha} · ${one(f.guard)} ${one(f.category)}: ${one(f.message)}`,
    );
  }
  const byId = new Map(findings.map((f) => [f.id, f]));
  for (const f of s.new.flatMap((id) => byId.get(id) ?? []).slice(0, MAX_LISTED)) {
    const where = f.path === undefined ? 'whole change' : `${f.path}${f.line !== undefined ? ` line ${f.line}` : ''}`;
    out.push(`  new: ${one(where)} · ${one(f.guard)} ${one(f.category)}: ${one(f.message.split('\n', 1)[0] ?? '')}`);
  }
  return out;
}
