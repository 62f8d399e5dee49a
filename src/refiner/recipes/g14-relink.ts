import { posix } from 'node:path';
import { evidenceAs } from '../../core/evidence.js';
import type { Finding } from '../../core/finding.js';
import {
  g14MissingPathEvidence,
  g14RootOnlyEvidence,
  type G14MissingPathEvidence,
  type G14RootOnlyEvidence,
} from '../../guards/g14-dead-links/evidence.js';
import type { Recipe, RecipeContext, RecipeFix } from '../types.js';
import { fixOf } from './line-suggestion.js';

/**
 * G14: a dead relative link whose intended file plainly exists — the one file that differs only in
 * letter case, extension or folder (G14's `candidates`), or the path G14 computed for a link written
 * from the repository root (`fix`) — is pointed at that file. Two or more candidates: no fix.
 */

/** The new target for `raw`: `fix` as G14 wrote it, or the candidate written the way the link was. */
function newTarget(docPath: string, raw: string, candidate: string): string {
  const cut = raw.search(/[?#]/);
  const suffix = cut < 0 ? '' : raw.slice(cut);
  if (raw.startsWith('/')) return `/${candidate}${suffix}`;
  const dir = posix.dirname(docPath);
  let rel = posix.relative(dir === '.' ? '' : dir, candidate);
  if (raw.startsWith('./') && !rel.startsWith('../')) rel = `./${rel}`;
  return `${rel}${suffix}`;
}

/** `line` with the one occurrence of the link target replaced; null when it is not there exactly once. */
function relinkLine(line: string, raw: string, next: string): string | null {
  for (const [from, to] of [
    [`(${raw}`, `(${next}`],
    [`(<${raw}>`, `(<${next}>`],
    [raw, next],
  ] as const) {
    if (line.split(from).length === 2) return line.replace(from, () => to);
  }
  return null;
}

/** G14's evidence of a link written from the repository root (`fix`), else of a missing path (`candidates`). */
function linkEvidence(f: Finding): { rootOnly?: G14RootOnlyEvidence; missing?: G14MissingPathEvidence } {
  const rootOnly = evidenceAs(g14RootOnlyEvidence, f);
  if (rootOnly) return { rootOnly };
  const missing = evidenceAs(g14MissingPathEvidence, f);
  return missing ? { missing } : {};
}

async function relink(finding: Finding, ctx: RecipeContext): Promise<RecipeFix | null> {
  const path = finding.path;
  if (!path) return null; // every finding this recipe handles names its file
  const { rootOnly, missing } = linkEvidence(finding);
  const raw = (rootOnly ?? missing)?.target.trim();
  if (!raw) return null;
  let next: string;
  if (rootOnly) {
    if (!rootOnly.existsAt || !(await ctx.exists(rootOnly.existsAt))) return null;
    next = rootOnly.fix;
  } else {
    const candidates = missing?.candidates ?? [];
    if (candidates.length !== 1) return null;
    const candidate = candidates[0]!;
    if (!(await ctx.exists(candidate))) return null;
    next = newTarget(path, raw, candidate);
  }
  if (next === raw) return null;
  const current = await ctx.readCurrent(path);
  if (current === null) return null;
  const lines = current.split('\n');
  // the finding's line, else the one line of the doc that still links there
  let at = finding.line !== undefined && lines[finding.line - 1]?.includes(raw) ? finding.line - 1 : -1;
  if (at < 0) {
    const holding = lines.flatMap((l, i) => (l.includes(`(${raw}`) ? [i] : []));
    if (holding.length !== 1) return null;
    at = holding[0]!;
  }
  const replaced = relinkLine(lines[at]!, raw, next);
  if (replaced === null) return null;
  lines[at] = replaced;
  return fixOf(ctx, {
    recipe: 'g14-relink',
    findingIds: [finding.id],
    path,
    before: current,
    after: lines.join('\n'),
    summary: `pointed the link \`${raw}\` in ${path} at \`${next}\``,
  });
}

export const g14Relink: Recipe = {
  id: 'g14-relink',
  handles(f) {
    if (f.guard !== 'G14' || f.category !== 'dead-link' || !f.path) return false;
    const { rootOnly, missing } = linkEvidence(f);
    return rootOnly !== undefined || missing?.candidates?.length === 1;
  },
  fix: relink,
};
