import type { Finding } from '../core/finding.js';
import type { Report } from '../core/report.js';
import { stripControl } from './format-helpers.js';

/**
 * The one place that makes text a pull request controls (file names, finding messages, test output,
 * model answers, command arguments) safe to write to GitHub under the App's or the Action's name:
 * review comments, command replies, refine comments, Q&A, the PR description, check runs, annotations,
 * the job summary. Nothing of it may notify anyone (`@user`, `@org/team`, `#123`), show an image, link
 * anywhere (inline, reference or auto-linked), or reach the page as HTML, and none of it may plant or
 * close an HTML comment (slopgate keeps its own state in `<!-- slopgate:… -->` markers and finds them
 * by searching the raw Markdown, so not even a code span may hold one verbatim).
 *
 * {@link inertText} is that function: it breaks every such construct with a zero-width space, which
 * keeps the text readable and needs no knowledge of where it lands (plain text, Markdown, a table). The
 * Markdown escapers below apply it and then backslash-escape what could change the structure of the
 * document slopgate writes around it. test/report/inert-renderers.test.ts feeds every renderer a hostile
 * string and fails when a new place that posts to GitHub is not on its list.
 */

const ZWSP = '\u200b';

/**
 * Breaks `<!--` and `-->` (and `--!>`) only. For code spans and blocks, where nothing else is live,
 * and for a whole document slopgate built (its own markers are appended after this).
 */
export function breakComments(text: string): string {
  return text.replace(/<(?=!--)/g, `<${ZWSP}`).replace(/--(?=!?>)/g, `-${ZWSP}-`);
}

/** Everything that could become live on GitHub in text outside code, broken with a zero-width space. */
function neutralisePlain(text: string): string {
  return (
    breakComments(text)
      // raw HTML and angle-bracket autolinks: <img …>, </details>, <!doctype>, <?xml, <https://…>
      .replace(/<(?=[A-Za-z/!?])/g, `<${ZWSP}`)
      // character references: &#64; renders as an @ and would mention; &lt;img&gt; as a tag's text
      .replace(/&(?=#|[A-Za-z][A-Za-z0-9]{1,31};)/g, `&${ZWSP}`)
      // images, and links inline, by reference and as definitions: ![x](…), [x](…), [x][r], [r]: …
      .replace(/!(?=\[)/g, `!${ZWSP}`)
      .replace(/\](?=[([:])/g, `]${ZWSP}`)
      // auto-linked URLs: scheme://…, www.…
      .replace(/([A-Za-z][A-Za-z0-9+.-]{0,31}):(?=\/\/)/g, `$1:${ZWSP}`)
      .replace(/\b(www)\./gi, `$1${ZWSP}.`)
      // mentions of users and teams, and e-mail autolinks: @user, @org/team, user@host
      .replace(/@(?=[A-Za-z0-9_-])/g, `@${ZWSP}`)
      // cross-references that notify another issue or PR: #123, owner/repo#123, GH-123
      .replace(/#(?=\d)/g, `#${ZWSP}`)
      .replace(/\b(GH)-(?=\d)/gi, `$1-${ZWSP}`)
  );
}

/**
 * PR-controlled text made inert for GitHub, in any context: code spans (which render as code) keep
 * their content apart from comment delimiters, everything else has its mentions, images, links,
 * auto-links, HTML, character references and comment delimiters broken. Spans are paired line by line
 * (a span across lines is treated as text), so a span that GitHub would not see as one is never
 * trusted. Applying it twice changes nothing more.
 */
export function inertText(text: string): string {
  return stripControl(text)
    .split('\n')
    .map((line) =>
      splitCodeSpans(line)
        .map((p) => (p.code ? `${p.fence}${breakComments(p.text)}${p.fence}` : neutralisePlain(p.text)))
        .join(''),
    )
    .join('\n');
}

/** Inline text: inert, and every character that could start Markdown structure is backslash-escaped. */
export function escapeMarkdown(text: string): string {
  return neutralisePlain(stripControl(text))
    .replace(/[\\`*_[\]<>|~&!#]/g, (c) => `\\${c}`)
    .replace(/^(\s*)([-+=>])/gm, (_m, space: string, mark: string) => `${space}\\${mark}`)
    .replace(/^(\s*\d+)([.)])/gm, (_m, lead: string, mark: string) => `${lead}\\${mark}`);
}

/** One table cell: escaped and on a single line (a newline would end the row). */
export function escapeCell(text: string): string {
  return escapeMarkdown(text.replace(/\s*[\r\n]+\s*/g, ' '));
}

/**
 * A fenced code block whose fence is longer than any backtick run inside, so the content cannot
 * close it. Content inside a fence is inert: no HTML, no mentions, no links.
 */
export function codeBlock(content: string, lang = ''): string {
  const body = breakComments(stripControl(content).replace(/\r\n?/g, '\n').replace(/\n$/, ''));
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang.replace(/[^\w+-]/g, '')}\n${body}\n${fence}`;
}

/**
 * A code span holding `content` verbatim (on one line). CommonMark closes a span only with a backtick
 * run as long as the opening one, so the fence is one backtick longer than the longest run inside;
 * content that starts or ends with a backtick or a space is padded with one space on each side,
 * which the renderer strips again. In a table cell, `|` is escaped (GFM splits cells even inside
 * code spans).
 */
export function codeSpan(content: string, opts: { cell?: boolean } = {}): string {
  let body = breakComments(stripControl(content).replace(/\s*[\r\n]+\s*/g, ' '));
  if (opts.cell) body = body.replace(/\|/g, '\\|');
  if (body === '') return '';
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(body) && body.trim() !== '' ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** A part of text: plain, or a code span with its fence. */
export type TextPart = { code: false; text: string } | { code: true; text: string; fence: string };

/** True when the character at `at` is escaped by an odd run of backslashes that starts at or after `from`. */
function escapedAt(text: string, at: number, from: number): boolean {
  let n = 0;
  for (let j = at - 1; j >= from && text[j] === '\\'; j--) n++;
  return n % 2 === 1;
}

/**
 * Splits text into plain parts and CommonMark code spans: a run of N backticks closed by the next run
 * of exactly N. A backslash before a backtick outside a span makes that backtick literal, as CommonMark
 * reads it, so `\`@x\`` is text (where a mention is live), not a code span.
 */
export function splitCodeSpans(text: string): TextPart[] {
  const parts: TextPart[] = [];
  const runs = [...text.matchAll(/`+/g)].map((m) => ({ at: m.index, len: m[0].length }));
  let plainFrom = 0;
  for (let i = 0; i < runs.length; i++) {
    let open = runs[i]!;
    if (open.at < plainFrom) continue;
    if (escapedAt(text, open.at, plainFrom)) {
      open = { at: open.at + 1, len: open.len - 1 };
      if (open.len === 0) continue;
    }
    const close = runs.slice(i + 1).find((r) => r.len === open.len);
    if (!close) continue;
    if (open.at > plainFrom) parts.push({ code: false, text: text.slice(plainFrom, open.at) });
    parts.push({ code: true, text: text.slice(open.at + open.len, close.at), fence: '`'.repeat(open.len) });
    plainFrom = close.at + close.len;
    i = runs.indexOf(close);
  }
  if (plainFrom < text.length) parts.push({ code: false, text: text.slice(plainFrom) });
  return parts;
}

/**
 * Untrusted text in which backtick code spans are meant as code (guard messages quote names and
 * paths that way): the spans become real code spans with a safe fence, everything else is escaped.
 */
export function escapeInline(text: string, opts: { cell?: boolean } = {}): string {
  return splitCodeSpans(stripControl(text))
    .map((p) => (p.code ? codeSpan(p.text, opts) : opts.cell ? escapeCell(p.text) : escapeMarkdown(p.text)))
    .join('');
}

/** Multi-line untrusted text with code spans, as a paragraph with hard line breaks. */
export function escapeInlineParagraph(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\n{2,}/g, '\n')
    .split('\n')
    .map((line) => escapeInline(line).trimEnd())
    .join('  \n');
}

function deep(value: unknown): unknown {
  if (typeof value === 'string') return inertText(value);
  if (Array.isArray(value)) return value.map(deep);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [inertText(k), deep(v)]));
  return value;
}

/**
 * A finding whose displayed text is inert: message, remediation, evidence and the dismissal's who and
 * why. Its path stays exact (the API places comments by it, and every renderer escapes it where it
 * shows it), and so does the suggestion, which is code for the file and only ever shown fenced.
 */
function inertFinding(f: Finding): Finding {
  const out: Finding = { ...f, message: inertText(f.message), remediation: inertText(f.remediation) };
  if (f.evidence) out.evidence = deep(f.evidence) as Finding['evidence']; // cast: deep() keeps the shape; it only rewrites strings
  if (f.dismissed) out.dismissed = { ...f.dismissed, by: inertText(f.dismissed.by), reason: inertText(f.dismissed.reason) };
  return out;
}

/**
 * The report as the App and the Action publish it: every finding, the decision's reason, the guards'
 * notes and every section made inert, before any renderer sees it. The renderers escape again for
 * their context; this pass makes sure no renderer that forgets can echo PR text live.
 */
export function inertReport(r: Report): Report {
  return {
    ...r,
    decision: { ...r.decision, reason: inertText(r.decision.reason) },
    guards: r.guards.map((g) => (g.reason === undefined ? g : { ...g, reason: inertText(g.reason) })),
    findings: r.findings.map(inertFinding),
    // cast: deep() keeps the shape; it only rewrites strings
    sections: deep(r.sections) as Report['sections'],
  };
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/**
 * Text for an HTML page (the dashboard): every character that could open a tag, an entity or leave an
 * attribute is an entity, and control characters are dropped, so PR-controlled text is shown as written
 * and never becomes markup. Safe in element content and in double- or single-quoted attributes.
 */
export function escapeHtml(text: string): string {
  return stripControl(text).replace(/[&<>"'`]/g, (c) => HTML_ENTITIES[c] ?? c);
}
