import { posix } from 'node:path';
import type { Finding } from '../../core/finding.js';
import type { Recipe, RecipeContext, RecipeFix } from '../types.js';
import { evidenceOf, str, strings } from './evidence.js';
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

async function relink(finding: Finding, ctx: RecipeContext): Promise<RecipeFix | null> {
  const path = finding.path;
  if (!path) return null; // every finding this recipe handles names its file
  const e = evidenceOf(finding);
  const raw = str(e, 'target')?.trim();
  if (!raw) return null;
  let next = str(e, 'fix');
  if (next !== undefined) {
    const existsAt = str(e, 'existsAt');
    if (!existsAt || !(await ctx.exists(existsAt))) return null;
  } else {
    const candidates = strings(e, 'candidates');
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
    const e = evidenceOf(f);
    return str(e, 'target') !== undefined && (str(e, 'fix') !== undefined || strings(e, 'candidates').length === 1);
  },
  fix: relink,
};
