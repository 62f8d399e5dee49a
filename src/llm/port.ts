import type { z } from 'zod';

/**
 * The one seam between slopgate and a language model. The refiner, the Q&A phase and the navigator
 * depend on this port only; `openai-model.ts` implements it over an OpenAI-compatible HTTP API and
 * tests may implement it with a scripted double. A model never sees secrets and never decides alone:
 * every answer is validated with the caller's zod schema before it is used.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Tokens spent, summed over every HTTP call a request needed (retries and corrective turns included). */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  calls: number;
}

export interface JsonRequest<T> {
  messages: ChatMessage[];
  /** Validates the parsed JSON; a mismatch is fed back to the model as a corrective turn. */
  schema: z.ZodType<T>;
  /** What the call is for, for logs and the token ledger (e.g. `refine`, `qa.questioner`, `navigator`). */
  purpose: string;
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

export interface JsonResult<T> {
  value: T;
  usage: TokenUsage;
  /** The model that answered (as the server named it, else as configured). */
  model: string;
  /** 1 when the first reply was valid; up to 3 with corrective turns. */
  attempts: number;
}

export interface JsonModel {
  /** The configured model name (for reports and the store of refine attempts). */
  readonly model: string;
  completeJson<T>(request: JsonRequest<T>): Promise<JsonResult<T>>;
}

export type LlmErrorKind = 'config' | 'timeout' | 'http' | 'network' | 'truncated' | 'invalid-json' | 'schema' | 'aborted';

/** Every failure of a model call, typed so callers can say what went wrong without parsing messages. */
export class LlmError extends Error {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
    /** Tokens and HTTP calls spent before the failure (added by the OpenAI-compatible client; optional for doubles). */
    readonly usage?: TokenUsage,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}
