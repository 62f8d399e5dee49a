import { describe, expect, it } from 'vitest';
import type { Category } from '../../src/core/categories.js';
import { makeFinding, type Finding, type Severity } from '../../src/core/finding.js';
import {
  BUCKET_PRECEDENCE,
  coerceMaxRounds,
  CONCLUSION_OF,
  decide,
  DEFAULT_MAX_ROUNDS,
  ROUND_ADVANCING,
} from '../../src/routing/decide.js';
import type { Outcome } from '../../src/core/decision.js';

let seq = 0;
function finding(category: Category, severity: Severity = 'fail'): Finding {
  seq++;
  return makeFinding({ guard: 'T', category, severity, path: `f${seq}.txt`, line: 1, message: `m${seq}`, remediation: `r${seq}` });
}

describe('routing/decide: coerceMaxRounds keeps the original clamp exactly', () => {
  it.each([
    [999, 100],
    [0, 1],
    [25, 25],
    [Number.NaN, DEFAULT_MAX_ROUNDS],
    [undefined, 3],
    [null, 3],
    [Infinity, 3],
    [-5, 1],
    [2.6, 3],
    ['7', 7],
    ['lots', 3],
  ])('%s → %s', (input, expected) => {
    expect(coerceMaxRounds(input)).toBe(expected);
  });
});

describe('routing/decide: outcomes, conclusions and next actions', () => {
  it('no findings is PASS: success, nothing to do, tier 1, not stuck', () => {
    const d = decide([]);
    expect(d).toMatchObject({ outcome: 'PASS', conclusion: 'success', next: 'none', tier: 1, stuck: false, blocking: 0, advisory: 0 });
  });

  it('only risk and nit findings (not strict) is ADVISE: neutral, annotations only, nothing blocks', () => {
    const d = decide([finding('dead-link', 'risk'), finding('style', 'nit')]);
    expect(d).toMatchObject({ outcome: 'ADVISE', conclusion: 'neutral', next: 'annotate', blocking: 0, advisory: 2, stuck: false });
    expect(d.buckets).toEqual({});
  });

  it('strict makes a risk finding block (REFINE), while a nit stays advisory', () => {
    const risk = finding('dead-link', 'risk');
    const nit = finding('style', 'nit');
    const d = decide([risk, nit], { strict: true });
    expect(d).toMatchObject({ outcome: 'REFINE', conclusion: 'failure', blocking: 1, advisory: 1 });
    expect(d.buckets.refine).toEqual([risk.id]);
    expect(decide([nit], { strict: true }).outcome).toBe('PASS');
  });

  it('nits alone pass (annotated); a risk next to them is ADVISE', () => {
    const nit = finding('style', 'nit');
    expect(decide([nit])).toMatchObject({ outcome: 'PASS', conclusion: 'success', next: 'annotate', advisory: 1 });
    expect(decide([nit, finding('dead-link', 'risk')])).toMatchObject({ outcome: 'ADVISE', conclusion: 'neutral' });
  });

  it('a fail finding in the refine bucket is REFINE; the next action depends on the refiner settings', () => {
    const fs = [finding('syntax-invalid')];
    expect(decide(fs).next).toBe('fix-and-push');
    expect(decide(fs, { refinerEnabled: true }).next).toBe('offer-refine');
    expect(decide(fs, { refinerEnabled: true, autoRefine: true }).next).toBe('auto-refine');
    expect(decide(fs)).toMatchObject({ outcome: 'REFINE', conclusion: 'failure', tier: 2, stuck: false });
  });

  it('maps each bucket to its outcome, conclusion and next action', () => {
    const cases: [Category, Outcome, string, string][] = [
      ['guard-error', 'STUCK', 'failure', 'label-stuck'],
      ['question-to-user', 'ASK_AUTHOR', 'action_required', 'ask-author'],
      ['sensitive-path', 'ESCALATE', 'failure', 'request-review'],
      ['information-missing', 'RESEARCH', 'action_required', 'ask-author'],
      ['toplevel-dropped', 'REFINE', 'failure', 'fix-and-push'],
    ];
    for (const [category, outcome, conclusion, next] of cases) {
      expect(decide([finding(category)]), category).toMatchObject({ outcome, conclusion, next });
    }
    expect(decide([finding('history-hotspot')]).tier).toBe(5);
  });

  it('the conclusion table matches the design: only PASS succeeds, ADVISE and SKIPPED are neutral', () => {
    expect(CONCLUSION_OF).toEqual({
      PASS: 'success',
      SKIPPED: 'neutral',
      ADVISE: 'neutral',
      REFINE: 'failure',
      RESEARCH: 'action_required',
      ASK_AUTHOR: 'action_required',
      ESCALATE: 'failure',
      STUCK: 'failure',
    });
  });

  it('a tier-1 skip (draft PR) is SKIPPED and neutral even with findings', () => {
    const d = decide([finding('syntax-invalid')], { skipReason: 'draft pull request' });
    expect(d).toMatchObject({ outcome: 'SKIPPED', conclusion: 'neutral', tier: 1, reason: 'draft pull request', stuck: false });
  });
});

describe('routing/decide: precedence stuck > ask-author > escalate > research > refine', () => {
  const byBucket: Record<string, Category> = {
    stuck: 'critic-error',
    'ask-author': 'scope-creep',
    escalate: 'locked-decision-violation',
    research: 'information-missing',
    refine: 'doc-destroyed',
  };
  const expected: Outcome[] = ['STUCK', 'ASK_AUTHOR', 'ESCALATE', 'RESEARCH', 'REFINE'];

  it('keeps the original order exactly', () => {
    expect(BUCKET_PRECEDENCE).toEqual(['stuck', 'ask-author', 'escalate', 'research', 'refine']);
  });

  it('with one blocking finding per bucket, the highest remaining bucket always wins', () => {
    for (let top = 0; top < BUCKET_PRECEDENCE.length; top++) {
      const present = BUCKET_PRECEDENCE.slice(top);
      // input order reversed so the winner is never simply the first finding
      const findings = [...present].reverse().map((b) => finding(byBucket[b]!));
      const d = decide(findings);
      expect(d.outcome, `buckets ${present.join(',')}`).toBe(expected[top]);
      expect(Object.keys(d.buckets).sort()).toEqual([...present].sort());
      expect(d.reason).toContain(`${present[0]} wins by precedence`);
    }
  });

  it('an advisory finding in a higher bucket does not outrank a blocking one (ask-author risk vs refine fail)', () => {
    const d = decide([finding('manifest-edit', 'risk'), finding('syntax-invalid', 'fail')]);
    expect(d.outcome).toBe('REFINE');
    expect(d.buckets['ask-author']).toBeUndefined();
  });
});

describe('routing/decide: rounds and the stuck rule', () => {
  it('round ≥ maxRounds with blocking findings is STUCK, overriding even ask-author', () => {
    const fs = [finding('question-to-user'), finding('syntax-invalid')];
    expect(decide(fs, { round: 2, maxRounds: 3 }).outcome).toBe('ASK_AUTHOR');
    const d = decide(fs, { round: 3, maxRounds: 3 });
    expect(d).toMatchObject({ outcome: 'STUCK', stuck: true, conclusion: 'failure', next: 'label-stuck', round: 3, maxRounds: 3 });
    expect(d.reason).toMatch(/round 3 of 3/);
    expect(decide(fs, { round: 5 }).outcome).toBe('STUCK');
  });

  it('the default cap is 3, and a configured cap is coerced (999 → 100, 0 → 1)', () => {
    const fs = [finding('syntax-invalid')];
    expect(decide(fs, { round: 2 }).outcome).toBe('REFINE');
    expect(decide(fs, { round: 3 }).outcome).toBe('STUCK');
    expect(decide(fs, { round: 99, maxRounds: 999 })).toMatchObject({ outcome: 'REFINE', maxRounds: 100 });
    expect(decide(fs, { round: 100, maxRounds: 999 }).outcome).toBe('STUCK');
    expect(decide(fs, { round: 1, maxRounds: 0 })).toMatchObject({ outcome: 'STUCK', maxRounds: 1 });
  });

  it('advisory findings never become STUCK at the round cap (nothing blocks, so there is nothing to converge)', () => {
    expect(decide([finding('dead-link', 'risk')], { round: 9 }).outcome).toBe('ADVISE');
  });

  it('a missing or nonsensical round counts as round 1', () => {
    expect(decide([finding('syntax-invalid')], { round: Number.NaN }).round).toBe(1);
    expect(decide([finding('syntax-invalid')], { round: 0 }).round).toBe(1);
  });

  it('only refine, research and ask-author advance the round counter', () => {
    expect([...ROUND_ADVANCING].sort()).toEqual(['ASK_AUTHOR', 'REFINE', 'RESEARCH']);
  });

  it('the stuck flag is true exactly when the outcome is STUCK (not the original’s always-false quirk)', () => {
    const scenarios = [
      decide([]),
      decide([finding('style', 'nit')]),
      decide([finding('syntax-invalid')]),
      decide([finding('stuck-detected')]),
      decide([finding('guard-error')], { round: 1 }),
      decide([finding('syntax-invalid')], { round: 3 }),
      decide([finding('scope-creep')]),
      decide([], { skipReason: 'draft' }),
    ];
    for (const d of scenarios) expect(d.stuck, d.outcome).toBe(d.outcome === 'STUCK');
    expect(scenarios.some((d) => d.outcome === 'STUCK')).toBe(true);
  });
});

describe('routing/decide: failures of the gate itself are never advisory', () => {
  it('a guard-error is STUCK even when it arrives with severity nit', () => {
    const d = decide([finding('guard-error', 'nit'), finding('style', 'nit')]);
    expect(d.outcome).toBe('STUCK');
    expect(d.blocking).toBe(1);
  });

  it('a critic-error from an unknown category is STUCK whatever else was found', () => {
    expect(decide([finding('critic-error'), finding('question-to-user')]).outcome).toBe('STUCK');
  });

  it('no evidence at all (no guard or critic ran) is never PASS', () => {
    const d = decide([], { evidence: 0 });
    expect(d.outcome).toBe('STUCK');
    expect(d.stuck).toBe(true);
    expect(d.reason).toMatch(/no guard/i);
    expect(decide([], { evidence: 3 }).outcome).toBe('PASS');
  });
});
