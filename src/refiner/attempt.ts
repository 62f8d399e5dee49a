import type { Finding } from '../core/finding.js';
import type { TokenUsage } from '../llm/port.js';
import type { GuardVerdict } from './verdict.js';

/** How one candidate ended. */
export type AttemptOutcome = 'kept' | 'reverted' | 'refused' | 'error';

/** One candidate patch set the refiner tried: a recipe's fix or one model reply. */
export interface RefineAttempt {
  /** 1-based, in the order tried. */
  n: number;
  /** A recipe id, or `model:<name>`. */
  source: string;
  /** Paths the candidate wrote (or tried to write). */
  paths: string[];
  /** Findings it was meant to fix. */
  targets: string[];
  outcome: AttemptOutcome;
  /** Why it was not kept (the first failing guard's message, the schema's complaint, the model's error). */
  reason?: string;
  verdicts: GuardVerdict[];
  /** Findings it fixed (kept attempts only). */
  fixed: string[];
  tokens: { prompt: number; completion: number };
  /** The candidate commit, when one was made. */
  candidateSha?: string;
  ms: number;
}

/** Where attempts go as they happen (the store; nothing by default). */
export type AttemptSink = (attempt: RefineAttempt) => Promise<void>;

export function emptyUsage(): TokenUsage {
  return { promptTokens: 0, completionTokens: 0, calls: 0 };
}

export function addUsage(into: TokenUsage, more: TokenUsage): void {
  into.promptTokens += more.promptTokens;
  into.completionTokens += more.completionTokens;
  into.calls += more.calls;
}

/** Where a refine round stands: the current candidate commit, its findings and files, what it fixed. */
export interface RefineState {
  sha: string;
  findings: Finding[];
  files: Map<string, string>;
  fixedKeys: Set<string>;
  summaries: string[];
  blocking: number;
}
