import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Report } from '../core/report.js';
import type { Outcome } from '../core/decision.js';

/**
 * The decisions log: one compact JSON line per gate evaluation that did not PASS, append-only, in the
 * shape of the Navigator's off-road log adapted to pull requests. PASS plays the role of the
 * Navigator's CONTINUE and is never written.
 */

export const FLOW_KEY = 'pr-gate';
export const CHECK_NAME = 'slopgate';

export type Confidence = 'HIGH' | 'MEDIUM' | 'LOW';

export const DECISION_OUTCOMES: ReadonlySet<Outcome> = new Set<Outcome>(['PASS', 'ADVISE', 'REFINE', 'RESEARCH', 'ASK_AUTHOR', 'ESCALATE', 'STUCK', 'SKIPPED']);
const CONFIDENCES: ReadonlySet<string> = new Set(['HIGH', 'MEDIUM', 'LOW']);

export interface DecisionRecord {
  /** ISO 8601 in UTC, ending in `Z`. */
  timestamp: string;
  run_id: string;
  flow_key: string;
  /** `slopgate@<head sha>`. */
  step_id: string;
  /** The outcome of the evaluation. */
  decision: Outcome;
  reason: string;
  /** The round (1-based) on this pull request. */
  iteration?: number;
  /** Only written when not HIGH (deterministic decisions are HIGH). */
  confidence?: Exclude<Confidence, 'HIGH'>;
  /** The refiner signature / recipe that matched, when one did. */
  signature_matched?: string;
}

export class DecisionRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecisionRecordError';
  }
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

/**
 * Checks a record and returns it in canonical key order with absent optional fields dropped and
 * `confidence: HIGH` omitted. Throws {@link DecisionRecordError} on anything outside the format.
 */
export function normaliseDecisionRecord(raw: unknown): DecisionRecord {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new DecisionRecordError('a decision record must be an object');
  const r = raw as Record<string, unknown>;
  if (!nonEmpty(r.timestamp) || !ISO_UTC.test(r.timestamp)) throw new DecisionRecordError(`timestamp must be ISO 8601 UTC ending in Z, got ${JSON.stringify(r.timestamp)}`);
  for (const key of ['run_id', 'flow_key', 'step_id', 'reason'] as const) {
    if (!nonEmpty(r[key])) throw new DecisionRecordError(`${key} must be a non-empty string`);
  }
  if (typeof r.decision !== 'string' || !DECISION_OUTCOMES.has(r.decision as Outcome)) {
    throw new DecisionRecordError(`decision must be one of ${[...DECISION_OUTCOMES].join(', ')}, got ${JSON.stringify(r.decision)}`);
  }
  const out: DecisionRecord = {
    timestamp: r.timestamp,
    run_id: r.run_id as string,
    flow_key: r.flow_key as string,
    step_id: r.step_id as string,
    decision: r.decision as Outcome,
    reason: r.reason as string,
  };
  if (r.iteration !== undefined && r.iteration !== null) {
    if (typeof r.iteration !== 'number' || !Number.isInteger(r.iteration) || r.iteration < 1) throw new DecisionRecordError('iteration must be a positive integer');
    out.iteration = r.iteration;
  }
  if (r.confidence !== undefined && r.confidence !== null) {
    if (typeof r.confidence !== 'string' || !CONFIDENCES.has(r.confidence)) throw new DecisionRecordError(`confidence must be HIGH, MEDIUM or LOW, got ${JSON.stringify(r.confidence)}`);
    if (r.confidence !== 'HIGH') out.confidence = r.confidence as 'MEDIUM' | 'LOW';
  }
  if (r.signature_matched !== undefined && r.signature_matched !== null) {
    if (!nonEmpty(r.signature_matched)) throw new DecisionRecordError('signature_matched must be a non-empty string');
    out.signature_matched = r.signature_matched;
  }
  return out;
}

/** The record for one gate report (the caller decides whether to append it; PASS is skipped there). */
export function toDecisionRecord(
  report: Report,
  runId: string,
  opts: { confidence?: Confidence; signatureMatched?: string; now?: Date } = {},
): DecisionRecord {
  return normaliseDecisionRecord({
    timestamp: (opts.now ?? new Date()).toISOString(),
    run_id: runId,
    flow_key: FLOW_KEY,
    step_id: `${CHECK_NAME}@${report.head.sha}`,
    decision: report.decision.outcome,
    reason: report.decision.reason || report.decision.outcome,
    iteration: report.decision.round,
    confidence: opts.confidence,
    signature_matched: opts.signatureMatched,
  });
}

/**
 * Appends one record as a single compact JSON line. PASS is not logged (returns false). The write is
 * one `O_APPEND` call, so concurrent writers never interleave inside a line.
 */
export async function appendDecision(file: string, record: DecisionRecord): Promise<boolean> {
  const clean = normaliseDecisionRecord(record);
  if (clean.decision === 'PASS') return false;
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, JSON.stringify(clean) + '\n', { encoding: 'utf8', flag: 'a' });
  return true;
}

/**
 * Reads a decisions log. A missing file is an empty log; a line that is not valid JSON or not a valid
 * record is skipped and reported through `warn` (default: a process warning) with its line number.
 */
export async function readDecisions(file: string, warn: (message: string) => void = (m) => process.emitWarning(m, 'SlopgateDecisionsLog')): Promise<DecisionRecord[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const records: DecisionRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      records.push(normaliseDecisionRecord(JSON.parse(line)));
    } catch (err) {
      warn(`${file}:${i + 1}: skipped a bad decisions-log line (${err instanceof Error ? err.message : String(err)})`);
    }
  });
  return records;
}
