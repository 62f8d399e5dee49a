import { inRanges, parseUnifiedZeroDiff, unquoteGitPath, type LineRange } from './diff-hunks.js';
import { fingerprintOf, normalizeText, type Finding } from './finding.js';
import { headLineForBaseLine } from './line-map.js';
import type { GoneFinding, SincePushSection, StillOpenFinding } from './report-sections.js';

/**
 * "Since the last push": which findings of this head are new, which of the previous gated head are
 * gone, and which are still open. A finding's id hashes its line, so a line inserted above it changes
 * its id; the matching here carries each previous finding through the diff of the two heads first and
 * only then compares ids. Pure: the caller runs git and reads the store.
 */

/** How one file changed from the previous gated head to this head (`git diff -U0 -M previous head`). */
export interface FileShift {
  /** Its path at this head; null when the file was deleted. */
  newPath: string | null;
  /** Line ranges at this head that are new. */
  added: LineRange[];
  /** Line ranges at the previous head that are gone. */
  removed: LineRange[];
}

/** Keyed by the path at the previous head; a path that is absent did not change. */
export type HeadShifts = ReadonlyMap<string, FileShift>;

/** Reads `git diff -U0 -M --src-prefix=a/ --dst-prefix=b/ previous head` into per-file shifts, pure renames included. */
export function headShiftsFromDiff(diff: string): Map<string, FileShift> {
  const shifts = new Map<string, FileShift>();
  for (const f of parseUnifiedZeroDiff(diff)) {
    if (f.oldPath === null) continue; // an added file: no previous finding can sit in it
    shifts.set(f.oldPath, { newPath: f.newPath, added: f.added, removed: f.removed });
  }
  // A rename without content changes has no hunks, so the parser above leaves it out.
  let from: string | null = null;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) from = null;
    else if (line.startsWith('rename from ')) from = unquoteGitPath(line.slice('rename from '.length));
    else if (line.startsWith('rename to ') && from !== null && !shifts.has(from)) {
      shifts.set(from, { newPath: unquoteGitPath(line.slice('rename to '.length)), added: [], removed: [] });
    }
  }
  return shifts;
}

interface Carried {
  path: string | undefined;
  /** The line at this head; undefined when the finding has none or its line was rewritten. */
  line: number | undefined;
  /** The previous line was rewritten: the head lines that replaced it. */
  rewrittenInto?: LineRange;
  /** The file is gone at this head. */
  deleted?: boolean;
}

/** Where a previous finding's place is at this head. */
function carry(f: Finding, shifts: HeadShifts | null): Carried {
  const shift = f.path === undefined || shifts === null ? undefined : shifts.get(f.path);
  if (!shift) return { path: f.path, line: f.line };
  if (shift.newPath === null) return { path: f.path, line: f.line, deleted: true };
  if (f.line === undefined) return { path: shift.newPath, line: undefined };
  const moved = headLineForBaseLine(f.line, shift.removed, shift.added, Number.MAX_SAFE_INTEGER);
  if (!inRanges(shift.removed, f.line)) return { path: shift.newPath, line: moved };
  // A rewritten line maps to the first head line of the hunk that replaced it.
  const into = shift.added.find((r) => r.start === moved);
  return { path: shift.newPath, line: undefined, ...(into ? { rewrittenInto: into } : {}) };
}

/** The finding's identity without its line: what two places of the same problem share. */
function looseKey(f: Pick<Finding, 'category' | 'remediation' | 'cause'>, path: string | undefined): string {
  return [f.category, normalizeText(path), normalizeText(f.remediation).slice(0, 80), f.cause ?? ''].join('|');
}

export interface FindingMatch {
  previous: Finding;
  current: Finding;
}

export interface FindingComparison {
  matched: FindingMatch[];
  /** Previous findings this head does not have. */
  gone: Finding[];
  /** This head's findings the previous head did not have. */
  added: Finding[];
}

/**
 * Pairs the previous head's findings with this head's, in three passes, each only over what is still
 * unpaired:
 * 1. the previous finding carried to this head (renamed path, shifted line) has the id of a current one;
 * 2. its line was rewritten in place and a current finding with the same category, remediation and
 *    cause sits on the lines that replaced it;
 * 3. without a diff of the two heads (`shifts` null: the previous head is gone), the nearest current
 *    finding with the same category, remediation and cause in the same file.
 */
export function compareFindings(previous: readonly Finding[], current: readonly Finding[], shifts: HeadShifts | null): FindingComparison {
  const open = new Map(current.map((f) => [f.id, f]));
  const matched: FindingMatch[] = [];
  const left: { f: Finding; at: Carried }[] = [];
  for (const p of previous) {
    const at = carry(p, shifts);
    const c = at.deleted || (p.line !== undefined && at.line === undefined) ? undefined : open.get(carriedId(p, at));
    if (c) {
      matched.push({ previous: p, current: c });
      open.delete(c.id);
    } else left.push({ f: p, at });
  }
  const byKey = new Map<string, Finding[]>();
  for (const c of open.values()) {
    const key = looseKey(c, c.path);
    byKey.set(key, [...(byKey.get(key) ?? []), c]);
  }
  // Candidate pairs for passes 2 and 3, nearest first; each finding is paired at most once.
  const pairs: { p: Finding; c: Finding; distance: number }[] = [];
  for (const { f: p, at } of left) {
    if (at.deleted) continue;
    for (const c of byKey.get(looseKey(p, at.path)) ?? []) {
      if (shifts !== null) {
        const r = at.rewrittenInto;
        if (!r || c.line === undefined || c.line < r.start || c.line > r.end) continue;
        pairs.push({ p, c, distance: c.line - r.start });
      } else {
        pairs.push({ p, c, distance: Math.abs((c.line ?? 0) - (p.line ?? 0)) });
      }
    }
  }
  pairs.sort((a, b) => a.distance - b.distance);
  const usedPrevious = new Set<Finding>();
  for (const { p, c } of pairs) {
    if (usedPrevious.has(p) || !open.has(c.id)) continue;
    usedPrevious.add(p);
    open.delete(c.id);
    matched.push({ previous: p, current: c });
  }
  return {
    matched,
    gone: left.map((l) => l.f).filter((p) => !usedPrevious.has(p)),
    added: current.filter((c) => open.has(c.id)),
  };
}

function carriedId(p: Finding, at: Carried): string {
  return fingerprintOf({
    category: p.category,
    path: at.path,
    line: at.line,
    remediation: p.remediation,
    ...(p.cause !== undefined ? { cause: p.cause } : {}),
  });
}

/** How many earlier ids a still-open finding remembers (enough for any realistic number of pushes). */
const MAX_ALIASES = 20;

export interface SincePushInput {
  previous: {
    headSha: string;
    mergeBase: string;
    findings: readonly Finding[];
    /** The previous report's own section, for the ids its findings had before (may be absent). */
    section?: Pick<SincePushSection, 'stillOpen'>;
  };
  current: {
    mergeBase: string;
    findings: readonly Finding[];
    /** Paths this head changes against its merge-base (the report's files). */
    changedPaths: readonly string[];
  };
  history: SincePushSection['history'];
  /** The diff of the two heads; null when the previous head is no longer available. */
  shifts: HeadShifts | null;
}

function firstLine(text: string, max: number): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function goneFinding(f: Finding, gone: GoneFinding['gone']): GoneFinding {
  return {
    id: f.id,
    guard: f.guard,
    category: f.category,
    severity: f.severity,
    ...(f.path !== undefined ? { path: f.path } : {}),
    ...(f.line !== undefined ? { line: f.line } : {}),
    message: firstLine(f.message, 300),
    gone,
  };
}

/**
 * The report section that says what a push changed: new, fixed (or gone with a new base), still open,
 * and dismissed since the previous gated head. Dismissed findings count on neither side: a finding
 * dismissed at the previous head and gone now was not open, and one dismissed now is not new.
 */
export function sincePushSection(input: SincePushInput): SincePushSection {
  const { previous, current } = input;
  const cmp = compareFindings(previous.findings, current.findings, input.shifts);
  const earlier = new Map((previous.section?.stillOpen ?? []).map((s) => [s.id, s.was]));
  const mergeBaseMoved = previous.mergeBase !== current.mergeBase;
  const changed = new Set(current.changedPaths.map((p) => normalizeText(p)));
  const stillOpen: StillOpenFinding[] = [];
  const dismissed: string[] = [];
  for (const { previous: p, current: c } of cmp.matched) {
    if (c.dismissed) {
      if (!p.dismissed) dismissed.push(c.id);
      continue;
    }
    const was = [...new Set([p.id, ...(earlier.get(p.id) ?? [])])].filter((id) => id !== c.id).slice(0, MAX_ALIASES);
    stillOpen.push({ id: c.id, was });
  }
  const fixed = cmp.gone
    .filter((p) => !p.dismissed)
    .map((p) => {
      const path = carry(p, input.shifts).path;
      // After a rebase, a file the PR no longer changes went into the new base: that is not the author's fix.
      const intoBase = mergeBaseMoved && path !== undefined && !changed.has(normalizeText(path));
      return goneFinding(p, intoBase ? 'base' : 'fixed');
    });
  return {
    previous: { headSha: previous.headSha, mergeBase: previous.mergeBase },
    history: input.history,
    mergeBaseMoved,
    lineMapping: input.shifts === null ? 'nearest' : 'diff',
    new: cmp.added.filter((c) => !c.dismissed).map((c) => c.id),
    stillOpen,
    dismissed,
    fixed,
  };
}

/** Earlier id → id at this head, for every still-open finding (review comments carry the id they were posted with). */
export function earlierIds(section: Pick<SincePushSection, 'stillOpen'> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of section?.stillOpen ?? []) for (const id of s.was) if (!out.has(id)) out.set(id, s.id);
  return out;
}
