import type { LineRange } from '../core/diff-hunks.js';
import type { Finding } from '../core/finding.js';
import { codeSpan, escapeInlineParagraph, escapeMarkdown } from '../report/markdown-escape.js';

/** Hidden marker that ties a review comment to the finding it reports. */
export const findingMarker = (id: string) => `<!-- slopgate:finding:${id} -->`;
const MARKER_RE = /<!-- slopgate:finding:([A-Za-z0-9_-]{1,64}) -->/;

export function findingIdOf(body: string | null | undefined): string | null {
  return MARKER_RE.exec(body ?? '')?.[1] ?? null;
}

/** A review comment slopgate posted earlier on this PR. */
export interface PostedComment {
  id: number;
  /** The host's reference for hiding it (see ReviewComment.handle). */
  handle: string;
  findingId: string;
  path: string;
  /** Null when GitHub marks the comment outdated. */
  line: number | null;
  /** A person answered in the thread: never hide or resolve it. */
  humanReplied: boolean;
}

/** One comment of the review request (GitHub's shape). */
export interface ReviewCommentInput {
  path: string;
  body: string;
  line: number;
  side: 'RIGHT';
  start_line?: number;
  start_side?: 'RIGHT';
}

export interface ReviewPlan {
  comments: ReviewCommentInput[];
  /** Findings with a place on the diff that were already commented (earlier run or force-push). */
  alreadyPosted: Finding[];
  /** Findings that have no added line to sit on: the check run carries them. */
  offDiff: Finding[];
  /** Findings on the diff left out because the comment budget ran out. */
  overBudget: Finding[];
  /** Earlier comments whose finding is gone (fixed): hide or resolve them. */
  stale: PostedComment[];
}

export interface PlanOptions {
  budget: number;
  suggestions: boolean;
}

function rangeOf(ranges: LineRange[], line: number): LineRange | undefined {
  return ranges.find((r) => line >= r.start && line <= r.end);
}

/** Longest run of backticks in `text`, so the suggestion fence can be longer than any inside it. */
function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

const SEVERITY_LABEL = { fail: 'Blocking', risk: 'Risk', nit: 'Nit' } as const;

/**
 * One review comment: severity, category and guard, the message and what to do (PR-controlled text,
 * escaped: no mention, link, image or HTML of it is live), the suggestion block when there is one, and
 * slopgate's hidden marker last.
 */
export function commentBody(f: Finding, suggestion?: string): string {
  const parts = [
    `**${SEVERITY_LABEL[f.severity]}** · ${codeSpan(f.category)} · ${escapeMarkdown(f.guard)}`,
    '',
    escapeInlineParagraph(clip(f.message, 6000)),
    '',
    `**What to do:** ${escapeInlineParagraph(clip(f.remediation, 3000))}`,
  ];
  if (suggestion !== undefined) {
    const fence = fenceFor(suggestion);
    parts.push('', `${fence}suggestion`, suggestion, fence);
  }
  parts.push('', findingMarker(f.id));
  return parts.join('\n');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Where a finding can sit on the diff: its own lines, or the lines its suggestion replaces. */
function anchor(
  f: Finding,
  added: Map<string, LineRange[]>,
  suggestions: boolean,
): { path: string; start: number; end: number; suggestion?: string } | null {
  if (!f.path || !f.line) return null;
  const ranges = added.get(f.path);
  if (!ranges?.length) return null;
  const s = f.suggestion;
  if (suggestions && s?.path === f.path && s.startLine >= 1 && s.endLine >= s.startLine) {
    const r = rangeOf(ranges, s.startLine);
    if (r && s.endLine <= r.end) {
      return { path: f.path, start: s.startLine, end: s.endLine, suggestion: s.replacement.replace(/\r?\n$/, '') };
    }
  }
  const r = rangeOf(ranges, f.line);
  if (!r) return null;
  const end = f.endLine && f.endLine > f.line && f.endLine <= r.end ? f.endLine : f.line;
  return { path: f.path, start: f.line, end };
}

/**
 * Decides which findings become review comments: only findings on lines the PR added (the RIGHT
 * side of the diff), never one already posted for the same finding and path, at most `budget` new
 * ones (findings arrive sorted, most important first); the rest stay in the check run. A comment
 * posted under an id the finding had at an earlier head (`earlierIds`: it moved since) is its comment.
 */
export function planReview(
  findings: Finding[],
  added: Map<string, LineRange[]>,
  posted: PostedComment[],
  opts: PlanOptions,
  earlierIds: ReadonlyMap<string, string> = new Map(),
): ReviewPlan {
  const plan: ReviewPlan = { comments: [], alreadyPosted: [], offDiff: [], overBudget: [], stale: [] };
  const idNow = (id: string) => earlierIds.get(id) ?? id;
  const postedKeys = new Set(posted.map((p) => `${idNow(p.findingId)}\u0000${p.path}`));
  for (const f of findings) {
    const spot = anchor(f, added, opts.suggestions);
    if (!spot) {
      plan.offDiff.push(f);
      continue;
    }
    if (postedKeys.has(`${f.id}\u0000${spot.path}`)) {
      plan.alreadyPosted.push(f);
      continue;
    }
    if (plan.comments.length >= opts.budget) {
      plan.overBudget.push(f);
      continue;
    }
    const c: ReviewCommentInput = { path: spot.path, body: commentBody(f, spot.suggestion), line: spot.end, side: 'RIGHT' };
    if (spot.end > spot.start) {
      c.start_line = spot.start;
      c.start_side = 'RIGHT';
    }
    plan.comments.push(c);
    postedKeys.add(`${f.id}\u0000${spot.path}`);
  }
  const current = new Set(findings.map((f) => f.id));
  plan.stale = posted.filter((p) => !current.has(idNow(p.findingId)) && !p.humanReplied);
  return plan;
}
