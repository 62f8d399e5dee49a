import { posix } from 'node:path';
import type { Finding, Severity } from '../core/finding.js';

/** Shared wording and small helpers for every reporter. */

export const SEVERITY_ORDER: Severity[] = ['fail', 'risk', 'nit'];

export function shortSha(sha: string | undefined): string {
  return sha ? sha.slice(0, 7) : '';
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}

export function countBySeverity(findings: Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { fail: 0, risk: 0, nit: 0 };
  for (const f of findings) if (f.severity in counts) counts[f.severity]++;
  return counts;
}

/** Findings ordered fail → risk → nit, keeping the report's order inside each severity. */
export function bySeverity(findings: Finding[]): Finding[] {
  const rank = (s: Severity) => {
    const i = SEVERITY_ORDER.indexOf(s);
    return i < 0 ? SEVERITY_ORDER.length : i;
  };
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f.severity) - rank(b.f.severity) || a.i - b.i)
    .map((x) => x.f);
}

/** Findings grouped by file (files alphabetically, whole-change findings first), each group by line. */
export function groupByFile(findings: Finding[]): { path: string | undefined; findings: Finding[] }[] {
  const groups = new Map<string | undefined, Finding[]>();
  for (const f of findings) {
    const key = f.path || undefined;
    const list = groups.get(key) ?? [];
    list.push(f);
    groups.set(key, list);
  }
  // Array#sort always moves undefined to the end, so whole-change findings are put first by hand.
  const named = [...groups.keys()].filter((k): k is string => k !== undefined).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const keys: (string | undefined)[] = groups.has(undefined) ? [undefined, ...named] : named;
  return keys.map((path) => ({
    path,
    findings: (groups.get(path) ?? [])
      .map((f, i) => ({ f, i }))
      .sort((a, b) => (a.f.line ?? 0) - (b.f.line ?? 0) || a.i - b.i)
      .map((x) => x.f),
  }));
}

/**
 * A PR path made safe to hand to GitHub as a repository-relative path: forward slashes, no leading
 * `./` or `/`, no `..` escaping the root. Returns undefined when nothing sensible is left.
 */
export function repoRelativePath(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const cleaned = path.replace(/\\/g, '/').replace(/[\u0000-\u001f\u007f]/g, '');
  const normal = posix
    .normalize(cleaned)
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '');
  if (!normal || normal === '.' || normal === '..' || normal.startsWith('../')) return undefined;
  return normal;
}

/**
 * Removes terminal control sequences and other control characters from untrusted text (a file name
 * or a message must not be able to move the cursor or recolour the terminal). Keeps newlines and tabs.
 */
export function stripControl(text: string): string {
  return text
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\u001b\][^\u0007\u001b]*(\u0007|\u001b\\)?/g, '')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/**
 * Cuts `text` to at most `max` UTF-16 code units (how GitHub counts), never splitting a surrogate
 * pair, and marks the cut with an ellipsis.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return max === 1 ? '…' : '';
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end) + '…';
}

/**
 * Cuts `text` to at most `max` code units at the last space before the limit, marked with an ellipsis, so
 * no word is left half; a text with no space in its second half is cut as `clip` does.
 */
export function clipAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const space = text.lastIndexOf(' ', max - 2);
  return space >= max / 2 ? `${text.slice(0, space).trimEnd()} …` : clip(text, max);
}

/** The first line of a message, clipped, for tables and one-line listings. */
export function firstLine(text: string, max: number): string {
  const line = text.split(/\r?\n/, 1)[0] ?? '';
  const more = text.length > line.length && text.slice(line.length).trim() !== '';
  return clip(more ? `${line} …` : line, max);
}

export function formatNumber(n: number, digits = 2): string {
  return Number.isFinite(n) ? n.toFixed(digits) : String(n);
}

const XML_NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * Decodes the XML character references test reports leave in messages (`&#10;`, `&#x27;`, `&lt;`,
 * `&amp;` …), once: `&amp;lt;` becomes `&lt;`, not `<`. Runs before any escaping, so a decoded `<`
 * is escaped like any other. References to invalid code points stay as they are.
 */
export function decodeXmlEntities(text: string): string {
  return text.replace(
    /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(lt|gt|amp|quot|apos));/g,
    (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
      if (name) return XML_NAMED[name]!;
      const code = dec !== undefined ? Number(dec) : parseInt(hex ?? '', 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return whole;
      return String.fromCodePoint(code);
    },
  );
}
