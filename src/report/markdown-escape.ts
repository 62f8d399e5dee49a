import { stripControl } from './format-helpers.js';

/**
 * Escaping of untrusted text (file names, messages, test names) for GitHub-flavoured Markdown.
 * The goal: PR content can neither change the structure of what slopgate writes (tables, headings,
 * lists, links, HTML, hidden `<!-- -->` markers) nor notify people (`@user`, `@org/team`).
 */

const ZERO_WIDTH_SPACE = '\u200b';

/**
 * Breaks `<!--` and `-->` with a zero-width space. Inside code spans and blocks they render as text
 * anyway, but slopgate finds its own hidden markers (`<!-- slopgate:… -->`) by searching the raw
 * Markdown, so PR-controlled text must not contain those sequences verbatim anywhere.
 */
function breakComments(text: string): string {
  return text.replace(/<!--/g, `<!${ZERO_WIDTH_SPACE}--`).replace(/-->/g, `--${ZERO_WIDTH_SPACE}>`);
}

/** Inline text: every character that could start Markdown or HTML is backslash-escaped. */
export function escapeMarkdown(text: string): string {
  return breakComments(stripControl(text))
    .replace(/[\\`*_[\]<>|~&!#]/g, (c) => `\\${c}`)
    .replace(/^(\s*)([-+=>])/gm, (_m, space: string, mark: string) => `${space}\\${mark}`)
    .replace(/^(\s*\d+)([.)])/gm, (_m, lead: string, mark: string) => `${lead}\\${mark}`)
    .replace(/@(?=[A-Za-z0-9_-])/g, `@${ZERO_WIDTH_SPACE}`);
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

/** Splits text into plain parts and CommonMark code spans (a run of N backticks closed by the next run of exactly N). */
export function splitCodeSpans(text: string): { code: boolean; text: string }[] {
  const parts: { code: boolean; text: string }[] = [];
  const runs = [...text.matchAll(/`+/g)].map((m) => ({ at: m.index, len: m[0].length }));
  let plainFrom = 0;
  for (let i = 0; i < runs.length; i++) {
    const open = runs[i]!;
    if (open.at < plainFrom) continue;
    const close = runs.slice(i + 1).find((r) => r.len === open.len);
    if (!close) continue;
    if (open.at > plainFrom) parts.push({ code: false, text: text.slice(plainFrom, open.at) });
    parts.push({ code: true, text: text.slice(open.at + open.len, close.at) });
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
  return splitCodeSpans(text)
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
