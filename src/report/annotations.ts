import type { Finding, Severity } from '../core/finding.js';
import type { Report } from '../core/report.js';
import { bySeverity, clip, repoRelativePath, shortSha } from './format-helpers.js';
import { inertText } from './markdown-escape.js';

/** A check-run annotation as the GitHub Checks API takes it. */
export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'failure' | 'warning' | 'notice';
  title: string;
  message: string;
  raw_details?: string;
}

export const ANNOTATION_LEVEL: Record<Severity, CheckAnnotation['annotation_level']> = {
  fail: 'failure',
  risk: 'warning',
  nit: 'notice',
};

/** GitHub takes at most 64 KB for `message` and `raw_details`; stay a little below, in bytes. */
const MAX_FIELD_BYTES = 60_000;
const MAX_TITLE = 255;

/** Clips text so its UTF-8 encoding fits in `maxBytes`. */
function clipBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (Buffer.byteLength(clip(text, mid), 'utf8') <= maxBytes) lo = mid;
    else hi = mid - 1;
  }
  return clip(text, lo);
}

function rawDetails(f: Finding): string | undefined {
  const parts: string[] = [];
  const s = f.suggestion;
  if (s && typeof s.replacement === 'string') {
    parts.push(`Suggested replacement for lines ${s.startLine}-${s.endLine} of ${s.path}:`, s.replacement.replace(/\n$/, ''));
  }
  if (f.confirmedBy.length > 1) parts.push(`Confirmed by: ${f.confirmedBy.join(', ')}`);
  if (parts.length === 0) return undefined;
  return clipBytes(inertText(parts.join('\n')), MAX_FIELD_BYTES);
}

/**
 * One annotation per finding that has a path and is not dismissed (whole-change findings belong in the summary), ordered
 * failures first, then warnings, then notices. A finding without a line is annotated on line 1.
 * Sending them in batches of 50 is the caller's job.
 */
export function toAnnotations(report: Report): CheckAnnotation[] {
  const out: CheckAnnotation[] = [];
  for (const f of bySeverity(report.findings)) {
    const path = repoRelativePath(f.path);
    // A dismissed finding is listed in the summary as dismissed; it gets no annotation on the diff.
    if (!path || f.dismissed) continue;
    const start = f.line && f.line > 0 ? f.line : 1;
    const end = f.line && f.endLine && f.endLine >= start ? f.endLine : start;
    const where = f.commit ? ` (commit ${shortSha(f.commit)})` : '';
    const message = `${f.message}${f.remediation ? `\n\nWhat to do: ${f.remediation}` : ''}\n\nslopgate finding ${f.id}${where}`;
    const annotation: CheckAnnotation = {
      path,
      start_line: start,
      end_line: end,
      annotation_level: ANNOTATION_LEVEL[f.severity],
      // Plain text on GitHub, but PR-controlled: inert all the same (annotations are also the Action's workflow commands).
      title: clip(inertText(`${f.guard} ${f.category}: ${f.message.split('\n', 1)[0]}`), MAX_TITLE),
      message: clipBytes(inertText(message), MAX_FIELD_BYTES),
    };
    const raw = rawDetails(f);
    if (raw) annotation.raw_details = raw;
    out.push(annotation);
  }
  return out;
}
