import { stripControl } from './format-helpers.js';

/**
 * Escaping of untrusted text (file names, messages, test names) for GitHub-flavoured Markdown.
 * The goal: PR content can neither change the structure of what slopgate writes (tables, headings,
 * lists, links, HTML, hidden `<!-- -->` markers) nor notify people (`@user`, `@org/team`).
 */

const ZERO_WIDTH_SPACE = '\u200b';

/** Inline text: every character that could start Markdown or HTML is backslash-escaped. */
export function escapeMarkdown(text: string): string {
  return stripControl(text)
    .replace(/[\\`*_[\]<>|~&!#]/g, (c) => `\\${c}`)
    .replace(/^(\s*)([-+=>])/gm, (_m, space: string, mark: string) => `${space}\\${mark}`)
    .replace(/^(\s*\d+)([.)])/gm, (_m, lead: string, mark: string) => `${lead}\\${mark}`)
    .replace(/@(?=[A-Za-z0-9_-])/g, `@${ZERO_WIDTH_SPACE}`);
}

/** Multi-line untrusted text as a paragraph: escaped, with hard line breaks kept. */
export function escapeParagraph(text: string): string {
  return escapeMarkdown(text.replace(/\r\n?/g, '\n').replace(/\n{2,}/g, '\n'))
    .split('\n')
    .map((l) => l.trimEnd())
    .join('  \n');
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
  const body = stripControl(content).replace(/\r\n?/g, '\n').replace(/\n$/, '');
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang.replace(/[^\w+-]/g, '')}\n${body}\n${fence}`;
}
