import { z } from 'zod';

/** A test the PR disabled (`added`: the skip markers) or stripped of assertions (`removed`: the deleted lines). G15 writes it. */
export const testWeakeningEvidence = z.object({
  test: z.string(),
  weakened: z.enum(['skip', 'assertions']),
  added: z.array(z.string()).optional(),
  removed: z.array(z.string()).optional(),
});
export type TestWeakeningEvidence = z.infer<typeof testWeakeningEvidence>;

/** What G8 adds when it ran the base version of a weakened test against the change: it fails, passes, or could not run. */
export const testRunEvidence = {
  fails: z.object({ baseVersion: z.literal('fails'), tests: z.array(z.string()), restored: z.array(z.string()), output: z.string() }),
  passes: z.object({ baseVersion: z.literal('passes'), tests: z.array(z.string()) }),
  notRun: z.object({ baseVersion: z.literal('not run'), tests: z.array(z.string()), notRunReason: z.string().optional() }),
};
export type TestRunEvidence = { [K in keyof typeof testRunEvidence]: z.infer<(typeof testRunEvidence)[K]> }[keyof typeof testRunEvidence];

/** G8's `tests-weakened` evidence: G15's fields and what the run showed. */
export const testWeakeningRunEvidence = Object.values(testRunEvidence).map((run) => testWeakeningEvidence.extend(run.shape));
