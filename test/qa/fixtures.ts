import type { Guard } from '../../src/core/guard.js';
import { prRepo, type TestRepo } from '../helpers/git-repo.js';

/** A guard that looks at every file and finds nothing, so the gate has evidence to stand on. */
export const quietGuard: Guard = { id: 'T0', name: 'quiet', appliesTo: () => true, checkFile: () => [] };

export const BASE_PARSE = 'export function parsePort(text: string): number {\n  return Number(text);\n}\n';
/** Head lines 2–4 are the PR's change; lines 1 and 5 are untouched. */
export const HEAD_PARSE =
  'export function parsePort(text: string): number {\n' +
  '  const n = Number(text);\n' +
  "  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new RangeError('bad port ' + text);\n" +
  '  return n;\n' +
  '}\n';

export function portRepo(extra: Record<string, string> = {}): TestRepo {
  return prRepo({ 'src/parse.ts': BASE_PARSE, 'README.md': '# ports\n' }, { 'src/parse.ts': HEAD_PARSE, ...extra });
}

export const QUESTIONS = {
  questions: [
    { slot: 'scope', question: 'Why does the error message include the raw input text?' },
    { slot: 'evidence', question: 'Which changed line rejects ports outside 1..65535?' },
    { slot: 'edge', question: 'What does parsePort return for the input "80.5"?' },
  ],
};

export function answers(evidenceCite: string | null, verdict: 'handled' | 'gap' | 'uncertain' = 'handled') {
  return {
    answers: [
      { slot: 'evidence', verdict, evidence: evidenceCite, rationale: 'The range check rejects anything outside 1..65535.' },
      { slot: 'edge', verdict: 'handled', evidence: 'src/parse.ts:3', rationale: 'Number.isInteger rejects 80.5.' },
      { slot: 'scope', verdict: 'uncertain', evidence: null, rationale: 'The message text is a judgement call.' },
    ],
  };
}
