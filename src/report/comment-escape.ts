import type { Finding } from '../core/finding.js';
import type { Report } from '../core/report.js';

/**
 * Neutralises HTML comment delimiters in text a pull request controls (paths, messages, test names,
 * evidence) before slopgate echoes it into a comment, check run or the PR description. slopgate keeps
 * hidden state in `<!-- slopgate:… -->` markers of its own comments; a file named
 * `<!-- slopgate:allow:… -->.md` quoted verbatim would plant such a marker under the App's name. A
 * zero-width space between `<` and `!--` (and inside `-->`, `--!>`) keeps the text readable and makes
 * it neither a comment for GitHub's renderer nor a marker for slopgate's own parsers — inside code
 * spans and fences too, where backslash escapes do not apply.
 */
const ZWSP = '\u200b';

export function neutralizeComments(text: string): string {
  return text.replace(/<(?=!--)/g, `<${ZWSP}`).replace(/--(?=!?>)/g, `-${ZWSP}-`);
}

function deep(value: unknown): unknown {
  if (typeof value === 'string') return neutralizeComments(value);
  if (Array.isArray(value)) return value.map(deep);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [neutralizeComments(k), deep(v)]));
  return value;
}

/** A finding whose displayed text is neutralised (its path stays exact: the API places comments by it). */
export function neutralizeFinding(f: Finding): Finding {
  const out: Finding = { ...f, message: neutralizeComments(f.message), remediation: neutralizeComments(f.remediation) };
  if (f.evidence) out.evidence = deep(f.evidence) as Finding['evidence']; // cast: deep() keeps the shape; it only rewrites strings
  return out;
}

/** The report as it may be echoed on GitHub: findings and sections neutralised. */
export function neutralizeReport(r: Report): Report {
  // cast: deep() keeps the shape; it only rewrites strings
  return { ...r, findings: r.findings.map(neutralizeFinding), sections: deep(r.sections) as Report['sections'] };
}
