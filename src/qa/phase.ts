import type { ChangedFile } from '../core/patch-set.js';
import type { JsonModel } from '../llm/port.js';
import { checkAnswers } from './evidence.js';
import type { Forensics } from './forensics.js';
import { defenderMessages, questionerMessages, roundTripMessage, type PrText } from './prompts.js';
import { answersSchema, questionsSchema, QA_SLOTS, type AnswersAnswer, type QaAnswer, type QaQuestion, type QaResult } from './types.js';

export interface QaModels {
  questioner: JsonModel;
  defender: JsonModel;
}

export interface QaPhaseInput {
  pr: PrText;
  /** The numbered diff view (see diffView). */
  diff: string;
  /** The changed files: citations are checked against their added lines. */
  files: readonly ChangedFile[];
  forensics: Forensics;
  signal?: AbortSignal;
}

function inSlotOrder<T extends { slot: string }>(items: readonly T[]): T[] {
  return QA_SLOTS.flatMap((s) => items.filter((i) => i.slot === s).slice(0, 1));
}

function toAnswers(value: AnswersAnswer): QaAnswer[] {
  return inSlotOrder(value.answers).map((a) => ({ slot: a.slot, verdict: a.verdict, evidence: a.evidence, rationale: a.rationale }));
}

/**
 * Questioner, defender, citation check, and at most one corrective round trip. Throws on any failure
 * (a model error included): the caller turns that into a visible `crashed` section.
 */
export async function runQaPhase(models: QaModels, input: QaPhaseInput): Promise<QaResult> {
  const asked = await models.questioner.completeJson({
    messages: questionerMessages(input.pr, input.diff),
    schema: questionsSchema,
    purpose: 'qa.questioner',
    temperature: 0.2,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const questions: QaQuestion[] = inSlotOrder(asked.value.questions).map((q) => ({ slot: q.slot, question: q.question }));
  const messages = defenderMessages(input.pr, input.diff, input.forensics, questions);
  const first = await models.defender.completeJson({
    messages,
    schema: answersSchema,
    purpose: 'qa.defender',
    temperature: 0,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  let answers = checkAnswers(toAnswers(first.value), input.files);
  let revisedPatch = first.value.revisedPatch ?? [];
  let roundTrip = false;
  if (answers.some((a) => a.flipped)) {
    roundTrip = true;
    const second = await models.defender.completeJson({
      messages: [...messages, { role: 'assistant', content: JSON.stringify(first.value) }, roundTripMessage(answers)],
      schema: answersSchema,
      purpose: 'qa.defender.round-trip',
      temperature: 0,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    answers = checkAnswers(toAnswers(second.value), input.files);
    if (second.value.revisedPatch) revisedPatch = second.value.revisedPatch;
  }
  return { questions, answers, roundTrip, revisedPatch, models: { questioner: asked.model, defender: first.model } };
}
