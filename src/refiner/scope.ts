import type { Finding } from '../core/finding.js';
import type { ChangedFileSummary } from '../core/report.js';
import { unsafePathReason } from './patch-schema.js';

/** Categories whose cause lies in the PR's diff rather than at the path the finding points to (a test). */
const DIFF_CAUSED = new Set(['test-regression', 'build-broken']);

/**
 * Largest file the model is shown and asked to return whole. The original middle-truncated big files,
 * which makes a full-file answer impossible (the model must invent the cut part); such files are left
 * out of the fence instead, and said so.
 */
export const MAX_PROMPT_FILE_CHARS = 60_000;

/**
 * Every path the PR changed, under its new and its old name, deleted files included: the only paths the
 * refiner may write. A finding's path alone never widens this: a `flaky-test` or `test-regression` path
 * comes from test results the PR's own code wrote, and may name any file of the repository.
 */
export function prPaths(changed: readonly ChangedFileSummary[]): Set<string> {
  return new Set(changed.flatMap((c) => (c.oldPath ? [c.path, c.oldPath] : [c.path])));
}

/** Why the refiner may not write `path`, or null when the PR changed it (`paths`: {@link prPaths}). */
export function outsidePrReason(path: string, paths: ReadonlySet<string>): string | null {
  return paths.has(path) ? null : 'not a file this PR changed (the refiner edits only those, whatever a finding points at)';
}

export interface ScopeInput {
  findings: readonly Finding[];
  /** The files the PR changed (the report's `files`). */
  changed: readonly ChangedFileSummary[];
  /** Current text of a path (head plus the fixes kept so far), or null when absent or binary. */
  read(path: string): Promise<string | null>;
  /** Paths to leave alone, with the reason (history hotspots, repeated reverts). */
  avoid?: ReadonlyMap<string, string>;
}

export interface Scope {
  /** The fence: the only paths a model patch may write, sorted. */
  flagged: string[];
  /** Their current contents. */
  contents: Map<string, string>;
  /** Paths a finding pointed to that are not in the fence, and why. */
  excluded: { path: string; reason: string }[];
}

/**
 * Which files the model may change: the files with findings; for a test regression or a build break,
 * the files the PR changed (the test that fails is the witness, not the culprit). Never a file the PR
 * did not change, never a path that is unsafe to write (manifest, lockfile, sensitive, escaping), never a file too large to return whole,
 * never a path the history says keeps failing.
 */
export async function computeScope(input: ScopeInput): Promise<Scope> {
  const wanted = new Map<string, string>(); // path → why it is wanted
  const changed = input.changed.filter((c) => c.status !== 'deleted');
  for (const f of input.findings) {
    if (DIFF_CAUSED.has(f.category)) {
      for (const c of changed) if (!wanted.has(c.path)) wanted.set(c.path, `changed by the PR (${f.category})`);
      continue;
    }
    if (f.path && !wanted.has(f.path)) wanted.set(f.path, f.category);
  }
  const flagged: string[] = [];
  const contents = new Map<string, string>();
  const excluded: { path: string; reason: string }[] = [];
  const ours = prPaths(input.changed);
  for (const path of [...wanted.keys()].sort()) {
    const outside = outsidePrReason(path, ours);
    if (outside) {
      excluded.push({ path, reason: outside });
      continue;
    }
    const unsafe = unsafePathReason(path);
    if (unsafe) {
      excluded.push({ path, reason: unsafe });
      continue;
    }
    const avoid = input.avoid?.get(path);
    if (avoid) {
      excluded.push({ path, reason: avoid });
      continue;
    }
    const text = await input.read(path);
    if (text === null) {
      excluded.push({ path, reason: 'not a regular text file at the head' });
      continue;
    }
    if (text.length > MAX_PROMPT_FILE_CHARS) {
      excluded.push({ path, reason: `larger than ${MAX_PROMPT_FILE_CHARS} characters (a full-file answer would have to be invented)` });
      continue;
    }
    flagged.push(path);
    contents.set(path, text);
  }
  return { flagged, contents, excluded };
}
