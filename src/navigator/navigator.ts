import type { ReportSections } from '../core/report-sections.js';
import { z } from 'zod';
import { bucketOf } from '../core/categories.js';
import type { Finding } from '../core/finding.js';
import type { Logger } from '../core/trace.js';
import { LlmError, type ChatMessage, type JsonModel } from '../llm/port.js';
import { DATA_RULE, dataBlock } from '../qa/data-block.js';
import type { SlopgateConfig } from '../core/config-schema.js';
import type { PatchSet } from '../core/patch-set.js';
import { diffView } from '../qa/diff-view.js';
import { forensicsOf, type Forensics } from '../qa/forensics.js';
import { CONCLUSION_OF, isBlocking } from '../routing/decide.js';
import type { DecideOptions, Decision, NextAction, Outcome } from '../routing/types.js';

/**
 * Tier 3: a model breaks a tie the route table leaves open, and nothing else. The code finds the
 * choice point and its candidates; the model picks one id from that closed list (a zod enum of exactly
 * the candidates); anything else — a refused answer, an error, a timeout — keeps the table's choice
 * and says so (`source: 'fallback'`). PASS and ADVISE are never candidates while a `fail` finding exists.
 */

export interface ChoicePoint {
  candidates: Outcome[];
  /** The route table's own answer: used when the model's answer is refused. */
  fallback: Outcome;
  /** The question the model answers, in the code's words. */
  question: string;
  findingIds: string[];
}

/** Categories whose right route depends on what the author meant, not on what the code does. */
const INTENT_DEPENDENT_ASK = new Set(['signature-change', 'tests-removed']);

/** G7's "public definition removed with every use" finding: the code cannot tell an API removal from an accident. */
function publicRemoval(f: Finding): boolean {
  return f.category === 'toplevel-dropped' && Array.isArray(f.evidence?.removedPublic);
}

/** Where the table leaves a real choice, or null (almost always). */
export function choicePoint(decision: Decision, findings: readonly Finding[], strict: boolean): ChoicePoint | null {
  const blocking = findings.filter((f) => isBlocking(f, strict));
  if (decision.outcome === 'REFINE' || decision.outcome === 'ADVISE') {
    const dropped = findings.filter(publicRemoval);
    if (dropped.length === 0) return null;
    const advise = decision.outcome === 'ADVISE';
    return {
      candidates: advise ? ['ADVISE', 'ASK_AUTHOR', 'REFINE'] : ['REFINE', 'ASK_AUTHOR'],
      fallback: decision.outcome,
      question:
        'Public top-level definitions were removed together with every use in this repository; code outside it may still need them. ' +
        (advise ? 'If the PR states the removal as its purpose, answer ADVISE. ' : '') +
        'If the removal looks intended but is not stated, answer ASK_AUTHOR so the author confirms it; ' +
        'if it looks accidental, answer REFINE so it is restored.',
      findingIds: dropped.map((f) => f.id),
    };
  }
  if (decision.outcome === 'ASK_AUTHOR') {
    const ask = blocking.filter((f) => bucketOf(f.category) === 'ask-author');
    const othersRefinable = blocking.every((f) => bucketOf(f.category) === 'ask-author' || bucketOf(f.category) === 'refine');
    if (ask.length === 0 || !othersRefinable || !ask.every((f) => INTENT_DEPENDENT_ASK.has(f.category))) return null;
    return {
      candidates: ['ASK_AUTHOR', 'REFINE'],
      fallback: 'ASK_AUTHOR',
      question:
        'The PR changed a public signature or removed tests. If the evidence shows this is part of what the PR sets out to do, ' +
        'answer ASK_AUTHOR so the author confirms it; if it is collateral damage a refiner can undo, answer REFINE.',
      findingIds: ask.map((f) => f.id),
    };
  }
  return null;
}

export const NAVIGATOR_SYSTEM = [
  'You are the tie-breaker of a pull-request gate. The gate has already decided everything it can; you pick one id from the',
  'candidate list the user turn gives you, using only the structured evidence (findings, test counts, Ψ, rounds, the diff).',
  'You cannot add candidates, and an answer outside the list is discarded.',
  DATA_RULE,
  'Answer with JSON only: {"choice":"<one candidate id>","rationale":"at most 400 characters"}',
].join('\n');

export interface NavigatorInput {
  decision: Decision;
  findings: readonly Finding[];
  strict: boolean;
  decide?: Pick<DecideOptions, 'refinerEnabled' | 'autoRefine'>;
  forensics: Forensics;
  diff: string;
  pr: { title: string; body: string };
  model: JsonModel;
  log: Logger;
  signal?: AbortSignal;
}

export function navigatorMessages(point: ChoicePoint, input: Pick<NavigatorInput, 'forensics' | 'diff' | 'pr'>): ChatMessage[] {
  return [
    { role: 'system', content: NAVIGATOR_SYSTEM },
    {
      role: 'user',
      content:
        `${point.question}\nCandidates: ${point.candidates.join(', ')}. The findings in question: ${point.findingIds.join(', ')}.\n` +
        dataBlock({ title: input.pr.title, description: input.pr.body, forensics: input.forensics, diff: input.diff }),
    },
  ];
}

function nextOf(outcome: Outcome, opts: NavigatorInput['decide']): NextAction {
  if (outcome === 'ASK_AUTHOR' || outcome === 'RESEARCH') return 'ask-author';
  if (outcome === 'ESCALATE') return 'request-review';
  if (outcome === 'STUCK') return 'label-stuck';
  if (outcome === 'REFINE') return opts?.refinerEnabled ? (opts.autoRefine ? 'auto-refine' : 'offer-refine') : 'fix-and-push';
  return outcome === 'PASS' || outcome === 'SKIPPED' ? 'none' : 'annotate';
}

/** The candidates a model may see: PASS and ADVISE are struck while any `fail` finding exists. */
export function allowedCandidates(candidates: readonly Outcome[], findings: readonly Finding[]): Outcome[] {
  const failing = findings.some((f) => f.severity === 'fail');
  return [...new Set(candidates)].filter((c) => !(failing && (c === 'PASS' || c === 'ADVISE')));
}

/** Runs tier 3 where there is a choice; returns the decision unchanged where there is none. Never throws. */
export async function navigate(input: NavigatorInput): Promise<Decision> {
  const point = choicePoint(input.decision, input.findings, input.strict);
  if (!point) return input.decision;
  const candidates = allowedCandidates(point.candidates, input.findings);
  const [first, ...rest] = candidates;
  if (first === undefined || rest.length === 0) return input.decision;
  const values: [Outcome, ...Outcome[]] = [first, ...rest];
  const schema = z.object({ choice: z.enum(values), rationale: z.string().max(400) }).strict();
  try {
    const answer = await input.model.completeJson({
      messages: navigatorMessages(point, input),
      schema,
      purpose: 'navigator',
      temperature: 0,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    // The port validates already; checking again keeps a faulty model adapter from widening the vocabulary.
    const checked = schema.safeParse(answer.value);
    if (!checked.success) throw new LlmError('schema', 'the answer is not one of the candidates');
    const choice = checked.data.choice;
    input.log.info({ event: 'navigator.choice', choice, candidates, model: answer.model }, 'navigator.choice');
    return {
      ...input.decision,
      outcome: choice,
      conclusion: CONCLUSION_OF[choice],
      next: nextOf(choice, input.decide),
      tier: 3,
      stuck: false,
      source: 'navigator',
      candidates,
      reason:
        `${input.decision.reason}; navigator chose ${choice} from ${candidates.join(' or ')} ` + `(the table alone says ${point.fallback})`,
    };
  } catch (err) {
    const kind = err instanceof LlmError ? err.kind : err instanceof Error ? err.name : 'error';
    const message = err instanceof Error ? err.message.slice(0, 300) : String(err);
    input.log.warn({ event: 'navigator.fallback', kind, message, candidates }, 'navigator.fallback');
    return {
      ...input.decision,
      source: 'fallback',
      candidates,
      reason: `${input.decision.reason}; navigator answer refused (${kind}), the table's ${point.fallback} stands`,
    };
  }
}

/** What a caller hands the gate to enable tier 3 (`GateOptions.navigator`). */
export interface NavigatorGateOptions {
  model?: JsonModel;
  /** Ask the model even when `navigator.enabled` is false. */
  force?: boolean;
  title?: string;
  body?: string;
  signal?: AbortSignal;
}

export interface NavigatorStageInput {
  decision: Decision;
  findings: readonly Finding[];
  patch: PatchSet;
  sections: ReportSections;
  config: SlopgateConfig;
  log: Logger;
  decide?: NavigatorInput['decide'];
}

/** The gate's tier-3 stage: the decision unchanged unless the navigator is on, has a model and a choice exists. */
export async function runNavigatorStage(opts: NavigatorGateOptions | undefined, input: NavigatorStageInput): Promise<Decision> {
  if (!opts?.model || (!opts.force && !input.config.navigator.enabled)) return input.decision;
  if (!choicePoint(input.decision, input.findings, input.config.strict)) return input.decision;
  return navigate({
    decision: input.decision,
    findings: input.findings,
    strict: input.config.strict,
    ...(input.decide ? { decide: input.decide } : {}),
    forensics: forensicsOf({ ...input, round: input.decision.round, maxRounds: input.decision.maxRounds }),
    diff: diffView(input.patch, input.config.qa.maxDiffChars).text,
    pr: { title: opts.title ?? '', body: opts.body ?? '' },
    model: opts.model,
    log: input.log,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}
