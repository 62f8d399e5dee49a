import { afterAll, describe, expect, it } from 'vitest';
import { prJobResult } from '../../src/host/pr-job.js';
import { findingMarker } from '../../src/host/review-plan.js';
import { ALL_CAPABILITIES, type CapabilityName } from './fake-platform.js';
import { cleanUpPrs, completionOf, setupPr } from './pr-setup.js';

afterAll(cleanUpPrs);

/**
 * The host methods each capability stands for, as the fake records them. `threads` is used only with
 * resolveThreads on (below); buttons show on the outcome; the conversation and push are not the job's.
 */
const CALLS_OF: Record<Exclude<CapabilityName, 'buttons' | 'conversation' | 'push' | 'threads'>, string> = {
  reviews: 'createReview',
  minimise: 'hideStaleComments',
  prBody: 'updatePullRequestBody',
  labels: 'addLabels',
};

/**
 * The shared job on a host with `caps`: a blocking finding (a review comment, the decision label at
 * maxRounds 1), a stale comment of a fixed finding (hidden), the PR-body section, and Refine offered.
 */
async function runWith(caps: readonly CapabilityName[], resolveThreads = false) {
  const s = await setupPr(
    { 'src/app.js': 'export const x = 1;\nexport const y = 2; // SLOP\n' },
    { config: 'maxRounds: 1\n', deps: { refinerAvailable: true, resolveThreads } },
  );
  s.host.reviewComments.push({
    id: 900,
    handle: 'RC_900',
    body: `fixed since ${findingMarker('gone')}`,
    path: 'src/app.js',
    line: 1,
    inReplyTo: null,
    authorIsBot: true,
  });
  s.host.only(...caps);
  expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
  return { s, out: completionOf(s) };
}

describe('the shared PR job over the capabilities of a host', { timeout: 120_000 }, () => {
  it('every capability on: review, hidden stale comment, PR body, labels and buttons', async () => {
    const { s, out } = await runWith(ALL_CAPABILITIES);
    expect(out.conclusion).toBe('failure');
    expect(out.actions?.map((a) => a.identifier)).toEqual(['refine', 'rerun']);
    for (const method of Object.values(CALLS_OF)) expect(s.host.callsOf(method), method).toHaveLength(1);
  });

  it('the core alone: the verdict on the check, without buttons, and nothing else is attempted', async () => {
    const { s, out } = await runWith([]);
    expect(out.conclusion).toBe('failure');
    expect(out.actions).toBeUndefined();
    expect(out.annotations?.[0]).toMatchObject({ path: 'src/app.js', start_line: 2 });
    for (const method of [...Object.values(CALLS_OF), 'listReviewComments', 'postComment', 'pushCommit']) {
      expect(s.host.callsOf(method), method).toEqual([]);
    }
  });

  for (const off of Object.keys(CALLS_OF) as (keyof typeof CALLS_OF)[]) {
    it(`without ${off}: only that step is left out, the others still happen`, async () => {
      const { s, out } = await runWith(ALL_CAPABILITIES.filter((c) => c !== off));
      expect(out.conclusion).toBe('failure');
      for (const [cap, method] of Object.entries(CALLS_OF)) {
        // Hiding needs the review comments listed first: without reviews, there is nothing to hide.
        const expected = cap === off || (off === 'reviews' && cap === 'minimise') ? 0 : 1;
        expect(s.host.callsOf(method), `${method} without ${off}`).toHaveLength(expected);
      }
    });
  }

  it('with resolveThreads on: the stale thread is resolved where the host can, else the comment is minimised, else left', async () => {
    const stale = [[7, [expect.objectContaining({ id: 900, handle: 'RC_900' })]]];
    const all = await runWith(ALL_CAPABILITIES, true);
    expect(all.s.host.callsOf('resolveThreads')).toEqual(stale);
    expect(all.s.host.callsOf('hideStaleComments')).toEqual([]);
    const noThreads = await runWith(
      ALL_CAPABILITIES.filter((c) => c !== 'threads'),
      true,
    );
    expect(noThreads.s.host.callsOf('resolveThreads')).toEqual([]);
    expect(noThreads.s.host.callsOf('hideStaleComments')).toEqual(stale);
    const neither = await runWith(
      ALL_CAPABILITIES.filter((c) => c !== 'threads' && c !== 'minimise'),
      true,
    );
    expect(neither.s.host.callsOf('resolveThreads')).toEqual([]);
    expect(neither.s.host.callsOf('hideStaleComments')).toEqual([]);
    expect(neither.out.conclusion).toBe('failure');
  });

  it('with resolveThreads off: the comment is minimised even where the host could resolve its thread', async () => {
    const { s } = await runWith(ALL_CAPABILITIES);
    expect(s.host.callsOf('resolveThreads')).toEqual([]);
    expect(s.host.callsOf('hideStaleComments')).toHaveLength(1);
  });

  it('without buttons: the same verdict, its Refine and Re-run buttons left out', async () => {
    const { out } = await runWith(ALL_CAPABILITIES.filter((c) => c !== 'buttons'));
    expect(out.conclusion).toBe('failure');
    expect(out.actions).toBeUndefined();
  });
});
