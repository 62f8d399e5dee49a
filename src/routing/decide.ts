import { findingWeight } from './fold.js';
import { bucketOf, type Bucket, type Category } from '../core/categories.js';
import type { Finding } from '../core/finding.js';
import type { Conclusion, Decision, NextAction, Outcome } from '../core/decision.js';
import type { DecideOptions } from './types.js';

export const DEFAULT_MAX_ROUNDS = 3;

/** Round cap: numbers are rounded and clamped to [1, 100]; anything else means the default. */
export function coerceMaxRounds(value: unknown): number {
  const n = Number(value);
  if (value === undefined || value === null || !Number.isFinite(n)) return DEFAULT_MAX_ROUNDS;
  return Math.min(100, Math.max(1, Math.round(n)));
}

/** Precedence, highest first. */
export const BUCKET_PRECEDENCE: Bucket[] = ['stuck', 'ask-author', 'escalate', 'research', 'refine'];

const OUTCOME_OF: Record<Bucket, Outcome> = {
  stuck: 'STUCK',
  'ask-author': 'ASK_AUTHOR',
  escalate: 'ESCALATE',
  research: 'RESEARCH',
  refine: 'REFINE',
};

export const CONCLUSION_OF: Record<Outcome, Conclusion> = {
  PASS: 'success',
  SKIPPED: 'neutral',
  ADVISE: 'neutral',
  REFINE: 'failure',
  RESEARCH: 'action_required',
  ASK_AUTHOR: 'action_required',
  ESCALATE: 'failure',
  STUCK: 'failure',
};

/** Outcomes after which the per-PR round counter advances. */
export const ROUND_ADVANCING: ReadonlySet<Outcome> = new Set(['REFINE', 'RESEARCH', 'ASK_AUTHOR']);

/**
 * Blocking findings: fail, risk under strict, and anything in the stuck bucket whatever its severity
 * (a crashed guard or an unroutable critic means part of the PR is unchecked; that is never advisory).
 */
export function isBlocking(f: Finding, strict: boolean): boolean {
  return f.severity === 'fail' || (strict && f.severity === 'risk') || bucketOf(f.category) === 'stuck';
}

function countBy(findings: Finding[]): string {
  const counts = new Map<Category, number>();
  for (const f of findings) counts.set(f.category, (counts.get(f.category) ?? 0) + 1);
  return [...counts].map(([c, n]) => `${c} ×${n}`).join(', ');
}

function withDismissed(reason: string, outcome: Outcome, dismissed: number): string {
  return dismissed > 0 && outcome !== 'SKIPPED' ? `${reason} (${plural(dismissed, 'dismissed finding')} not counted)` : reason;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * A decision with gaps in its coverage (a check expected to run that did not, or ran on part of its
 * input): never `success`. PASS becomes ADVISE (`neutral`) whose reason starts "not verified: …";
 * ADVISE says it first; a blocking or skipped decision keeps its outcome and names the gaps after its reason.
 */
export function markNotVerified(d: Decision, gaps: readonly string[]): Decision {
  if (gaps.length === 0 || d.outcome === 'SKIPPED') return d;
  const shown = gaps.slice(0, 3).join('; ') + (gaps.length > 3 ? `; and ${gaps.length - 3} more gaps` : '');
  const notVerified = [...gaps];
  if (d.outcome === 'PASS') {
    // "every guard passed" would be a promise the run did not keep: the nits (if any) are kept after the gaps.
    const rest = d.tier === 2 ? `; ${d.reason}` : '';
    return {
      ...d,
      outcome: 'ADVISE',
      conclusion: 'neutral',
      next: 'annotate',
      reason: `not verified: ${shown}${rest}`,
      notVerified,
      candidates: ['ADVISE'],
    };
  }
  if (d.outcome === 'ADVISE') return { ...d, reason: `not verified: ${shown}; ${d.reason}`, notVerified };
  return { ...d, reason: `${d.reason}; not verified: ${shown}`, notVerified };
}

/**
 * Routes merged findings to one bounded decision. Only blocking findings (fail, or risk when strict)
 * can fail the check; results with a risk but nothing blocking are ADVISE (neutral), nits alone PASS.
 */
export function decide(all: Finding[], opts: DecideOptions = {}): Decision {
  // A dismissed finding stays in the report but has no say in the decision.
  const findings = all.filter((f) => !f.dismissed);
  const strict = opts.strict ?? false;
  const round = Math.max(1, Math.floor(Number(opts.round) || 1));
  const maxRounds = coerceMaxRounds(opts.maxRounds);
  const blocking = findings.filter((f) => isBlocking(f, strict));
  // A folded summary counts as the findings it stands for.
  const count = (fs: Finding[]) => fs.reduce((n, f) => n + findingWeight(f), 0);
  const advisory = count(findings) - count(blocking);
  const buckets: Partial<Record<Bucket, string[]>> = {};
  for (const f of blocking) (buckets[bucketOf(f.category)] ??= []).push(f.id);
  const base = { round, maxRounds, blocking: count(blocking), advisory, buckets };
  const make: Make = (outcome, tier, reason, next) => ({
    ...base,
    outcome,
    conclusion: CONCLUSION_OF[outcome],
    reason: withDismissed(
      opts.testsNotRun && outcome !== 'SKIPPED' ? `${reason}; tests not run: ${opts.testsNotRun}` : reason,
      outcome,
      all.length - findings.length,
    ),
    next,
    tier,
    stuck: outcome === 'STUCK',
    source: tier === 1 ? 'fast-path' : tier === 5 ? 'escalate' : 'deterministic',
    candidates: [outcome],
  });

  if (opts.skipReason) return make('SKIPPED', 1, opts.skipReason, 'none');
  return markNotVerified(route({ findings, blocking, advisory, buckets, round, maxRounds }, opts, make), opts.notVerified ?? []);
}

type Make = (outcome: Outcome, tier: Decision['tier'], reason: string, next: NextAction) => Decision;

interface Tally {
  findings: Finding[];
  blocking: Finding[];
  advisory: number;
  buckets: Partial<Record<Bucket, string[]>>;
  round: number;
  maxRounds: number;
}

function route(t: Tally, opts: DecideOptions, make: Make): Decision {
  const { findings, blocking, advisory, buckets, round, maxRounds } = t;
  if (findings.length === 0 && opts.evidence === 0) {
    return make('STUCK', 2, 'no evidence: no guard or critic ran, so nothing was checked; refusing to report PASS', 'label-stuck');
  }
  if (findings.length === 0) return make('PASS', 1, opts.testsNotRun ? 'every guard that ran passed' : 'every guard passed', 'none');
  // Nits alone (a tool-config table added, a routine workflow bump) are worth an annotation, not a
  // neutral check: the PR passes and the nits are still shown.
  if (blocking.length === 0 && findings.every((f) => f.severity === 'nit')) {
    return make('PASS', 2, `${plural(advisory, 'nit')} (${countBy(findings)}); nothing to act on`, 'annotate');
  }
  if (blocking.length === 0) {
    return make('ADVISE', 2, `${plural(advisory, 'advisory finding')} (${countBy(findings)}); nothing blocks`, 'annotate');
  }
  if (round >= maxRounds) {
    return make(
      'STUCK',
      2,
      `round ${round} of ${maxRounds} reached with ${plural(blocking.length, 'blocking finding')} left`,
      'label-stuck',
    );
  }
  const bucket = BUCKET_PRECEDENCE.find((b) => buckets[b]?.length);
  if (!bucket) throw new Error('blocking findings fell into no routing bucket'); // every category has a bucket
  const outcome = OUTCOME_OF[bucket];
  const inBucket = blocking.filter((f) => bucketOf(f.category) === bucket);
  const reason = `${plural(blocking.length, 'blocking finding')}; ${bucket} wins by precedence (${countBy(inBucket)})`;
  let next: NextAction;
  switch (outcome) {
    case 'STUCK':
      next = 'label-stuck';
      break;
    case 'ESCALATE':
      next = 'request-review';
      break;
    case 'ASK_AUTHOR':
    case 'RESEARCH':
      next = 'ask-author';
      break;
    default:
      next = opts.refinerEnabled ? (opts.autoRefine ? 'auto-refine' : 'offer-refine') : 'fix-and-push';
  }
  return make(outcome, outcome === 'ESCALATE' ? 5 : 2, reason, next);
}
