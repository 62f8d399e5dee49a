import { inRanges } from '../core/diff-hunks.js';
import type { ChangedFile } from '../core/patch-set.js';
import type { QaAnswer } from './types.js';

/** Why a citation does not prove anything, or null when it points into the PR's added lines. */
export function citationProblem(evidence: string | null, files: readonly ChangedFile[]): string | null {
  const text = (evidence ?? '').trim().replace(/^`+|`+$/g, '');
  if (text === '') return 'handled without a path:line citation';
  const m = /^(.+?):L?(\d+)(?:\s*[-–]\s*L?(\d+)|:\d+)?$/.exec(text);
  if (!m) return `unparseable citation '${text.slice(0, 80)}' (expected path:line)`;
  const path = normalisePath(m[1]!);
  const from = Number(m[2]);
  const to = m[3] ? Number(m[3]) : from;
  if (from < 1 || to < from || to - from > 200) return `line range ${from}-${to} is not usable`;
  const file = findFile(path, files);
  if (!file) return `${path} is not a file this PR changes`;
  if (file.status === 'deleted') return `${file.path} is deleted by this PR, so no head line can prove anything`;
  for (let line = from; line <= to; line++) if (inRanges(file.added, line)) return null;
  return `${file.path}:${from === to ? from : `${from}-${to}`} is not a line this PR adds or changes`;
}

/** Strips `./`, a leading `/` and the `a/` or `b/` prefixes of diff headers. */
function normalisePath(raw: string): string {
  return raw
    .trim()
    .replace(/^[./]+/, '')
    .replace(/^[ab]\//, '');
}

function findFile(path: string, files: readonly ChangedFile[]): ChangedFile | undefined {
  const exact = files.find((f) => f.path === path);
  if (exact) return exact;
  // A shortened path is accepted only when it names exactly one changed file.
  const suffix = files.filter((f) => f.path.endsWith(`/${path}`));
  return suffix.length === 1 ? suffix[0] : undefined;
}

/** Flips every `handled` answer whose citation does not hold to `gap`, saying why. */
export function checkAnswers(answers: readonly QaAnswer[], files: readonly ChangedFile[]): QaAnswer[] {
  return answers.map((a) => {
    if (a.verdict !== 'handled') return { ...a };
    const problem = citationProblem(a.evidence, files);
    return problem ? { ...a, verdict: 'gap', flipped: problem } : { ...a };
  });
}
