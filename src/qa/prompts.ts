import type { ChatMessage } from '../llm/port.js';
import { DATA_RULE, dataBlock } from './data-block.js';
import type { Forensics } from './forensics.js';
import type { QaAnswer, QaQuestion } from './types.js';

/**
 * Fixed system prompts: nothing from the pull request is ever interpolated into them. PR text,
 * the diff and the forensics travel in the user turn, inside the quoted data block.
 */
export const QUESTIONER_SYSTEM = [
  'You review a pull request adversarially. Ask exactly three questions, one per slot:',
  '- "evidence": ask for the file:line in the changed lines that proves the PR does what its title claims;',
  '- "edge": name one concrete input or situation that would break the change, and ask whether it is handled;',
  '- "scope": name one change in the diff that the stated goal did not need, and ask why it is there.',
  'Each question is 10 to 500 characters and specific to this diff. Diff lines are numbered: "+12" is head line 12, "-b7" base line 7.',
  DATA_RULE,
  'Answer with JSON only: {"questions":[{"slot":"evidence","question":"…"},{"slot":"edge","question":"…"},' +
    '{"slot":"scope","question":"…"}]}',
].join('\n');

export const DEFENDER_SYSTEM = [
  'You defend a pull request against three review questions, honestly: agreeing with a weak change helps nobody.',
  'For each slot answer "handled", "gap" or "uncertain".',
  '- "handled" needs evidence: one citation path:line (head numbering, a line the PR adds or changes, shown as "+N" in the diff).',
  '  A citation outside the changed lines is rejected and the answer counts as a gap.',
  '- "gap" admits the question found a real problem; "uncertain" means the evidence does not settle it.',
  'rationale: at most 400 characters, facts from the diff and the forensics, no promises.',
  'You may propose revisedPatch: full new contents of at most a few changed files that close a gap, ' +
    'each change under ~15 lines; omit it otherwise.',
  DATA_RULE,
  'Answer with JSON only: {"answers":[{"slot":"evidence|edge|scope","verdict":"handled|gap|uncertain",' +
    '"evidence":"path:line or null","rationale":"…"}],"revisedPatch":[{"path":"…","content":"…"}]}',
].join('\n');

export interface PrText {
  title: string;
  body: string;
}

export function questionerMessages(pr: PrText, diff: string): ChatMessage[] {
  return [
    { role: 'system', content: QUESTIONER_SYSTEM },
    {
      role: 'user',
      content: `Ask your three questions about this pull request.\n${dataBlock({ title: pr.title, description: pr.body, diff })}`,
    },
  ];
}

export function defenderMessages(pr: PrText, diff: string, forensics: Forensics, questions: QaQuestion[]): ChatMessage[] {
  return [
    { role: 'system', content: DEFENDER_SYSTEM },
    {
      role: 'user',
      content:
        'Answer the three questions about this pull request.\n' +
        dataBlock({ title: pr.title, description: pr.body, diff, forensics, questions }),
    },
  ];
}

/** The one corrective turn: the defender is told which citations failed and why. */
export function roundTripMessage(answers: QaAnswer[]): ChatMessage {
  const busted = answers.filter((a) => a.flipped).map((a) => ({ slot: a.slot, citation: a.evidence, problem: a.flipped }));
  return {
    role: 'user',
    content:
      'These "handled" answers cite lines that do not prove anything, so they count as gaps. Answer all three slots again: ' +
      'cite a line the PR adds or changes ("+N" in the diff), or say gap or uncertain.\n' +
      dataBlock({ rejectedCitations: busted }),
  };
}
