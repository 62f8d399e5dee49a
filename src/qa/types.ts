import { z } from 'zod';

/** The three fixed questions: one slot each, always in this order. */
export const QA_SLOTS = ['evidence', 'edge', 'scope'] as const;
export type QaSlot = (typeof QA_SLOTS)[number];

export const QA_VERDICTS = ['handled', 'gap', 'uncertain'] as const;
export type QaVerdict = (typeof QA_VERDICTS)[number];

const eachSlotOnce = (items: { slot: QaSlot }[]) => QA_SLOTS.every((s) => items.filter((i) => i.slot === s).length === 1);
const slotMessage = { message: `exactly one entry per slot: ${QA_SLOTS.join(', ')}` };

/** What the questioner must return: three questions, one per slot. */
export const questionsSchema = z.object({
  questions: z
    .array(z.object({ slot: z.enum(QA_SLOTS), question: z.string().trim().min(10).max(500) }).strict())
    .length(3)
    .refine(eachSlotOnce, slotMessage),
});

/** A full-file replacement the defender may propose. Carried in the result, never applied by this phase. */
export const revisedFileSchema = z.object({ path: z.string().min(1).max(500), content: z.string().max(200_000) }).strict();
export type RevisedFile = z.output<typeof revisedFileSchema>;

/** What the defender must return: one verdict per slot, with a `path:line` citation for `handled`. */
export const answersSchema = z.object({
  answers: z
    .array(
      z
        .object({
          slot: z.enum(QA_SLOTS),
          verdict: z.enum(QA_VERDICTS),
          evidence: z.string().max(200).nullable(),
          rationale: z.string().trim().min(1).max(400),
        })
        .strict(),
    )
    .length(3)
    .refine(eachSlotOnce, slotMessage),
  revisedPatch: z.array(revisedFileSchema).max(8).optional(),
});
export type AnswersAnswer = z.output<typeof answersSchema>;

export interface QaQuestion {
  slot: QaSlot;
  question: string;
}

export interface QaAnswer {
  slot: QaSlot;
  verdict: QaVerdict;
  evidence: string | null;
  rationale: string;
  /** Set when the answer said `handled` and its citation did not hold: why it became a gap. */
  flipped?: string;
}

export interface QaResult {
  questions: QaQuestion[];
  answers: QaAnswer[];
  /** True when the defender was asked once more because of invalid citations. */
  roundTrip: boolean;
  /** The defender's proposed full-file replacements; the refiner's guarded apply path decides. */
  revisedPatch: RevisedFile[];
  models: { questioner: string; defender: string };
}

/** `report.sections.qa`: the shape the PR body and the check run read. */
export type { QaSection } from '../core/report-sections.js';
