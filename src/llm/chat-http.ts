import type { Logger } from '../core/trace.js';
import { backoffMs, retryAfterMs, type BackoffPolicy } from './backoff.js';
import { LlmError, type TokenUsage } from './port.js';
import { isRecord } from '../core/is-record.js';

/**
 * One chat-completions request over HTTP, with the per-call timeout and the retries: 408, 429 and 5xx
 * (not 501/505) and network errors are retried up to `maxRetries` times, waiting what `Retry-After` says
 * (up to the policy's cap) or else an exponential backoff with jitter. A timeout is not retried: a model
 * that did not answer in `timeoutMs` is unlikely to on the next try, and the refiner has a budget. Every
 * message this module builds passes through `redact`, so the API key cannot reach an error or a log line.
 */
export interface ChatHttpConfig {
  /** The full chat-completions URL. */
  url: string;
  timeoutMs: number;
  maxRetries: number;
  backoff: BackoffPolicy;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  log: Logger;
  redact: (text: string) => string;
  /** Builds the request headers; the key lives in the caller and is never handed to this module's messages. */
  headers: () => Record<string, string>;
}

export interface ChatReply {
  content: string | null;
  finishReason: string | null;
  /** The model the server says answered. */
  model: string | null;
  usage: TokenUsage;
}

export function emptyUsage(): TokenUsage {
  return { promptTokens: 0, completionTokens: 0, calls: 0 };
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    calls: a.calls + b.calls,
  };
}

const RETRYABLE_STATUS = (status: number): boolean =>
  status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505);

export async function postChat(cfg: ChatHttpConfig, body: unknown, purpose: string, signal?: AbortSignal): Promise<ChatReply> {
  let usage = emptyUsage();
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw new LlmError('aborted', `model call (${purpose}) aborted`, undefined, usage);
    usage = { ...usage, calls: usage.calls + 1 };
    const outcome = await oneTry(cfg, body, purpose, signal);
    if (outcome.kind === 'reply') return { ...outcome.reply, usage: addUsage(usage, { ...outcome.reply.usage, calls: 0 }) };
    const error = outcome.error;
    const canRetry = outcome.retryable && attempt < cfg.maxRetries;
    if (!canRetry) throw new LlmError(error.kind, error.message, error.status, usage);
    let delay = backoffMs(attempt, cfg.backoff);
    if (outcome.retryAfterMs !== null) {
      if (outcome.retryAfterMs > cfg.backoff.maxRetryAfterMs) {
        const secs = Math.ceil(outcome.retryAfterMs / 1000);
        const message = `${error.message}; the server asks to wait ${secs} s, more than the cap, so no retry`;
        throw new LlmError(error.kind, message, error.status, usage);
      }
      delay = outcome.retryAfterMs;
    }
    cfg.log.warn({ event: 'llm.retry', purpose, status: error.status, reason: error.kind, delayMs: delay, try: attempt + 1 }, 'llm.retry');
    try {
      await cfg.sleep(delay, signal);
    } catch {
      throw new LlmError('aborted', `model call (${purpose}) aborted while waiting to retry`, undefined, usage);
    }
  }
}

type TryOutcome = { kind: 'reply'; reply: ChatReply } | { kind: 'error'; error: LlmError; retryable: boolean; retryAfterMs: number | null };

async function oneTry(cfg: ChatHttpConfig, body: unknown, purpose: string, signal?: AbortSignal): Promise<TryOutcome> {
  const controller = new AbortController();
  // A box, not a `let`: the timer flips it while fetch awaits, which flow narrowing cannot see.
  const deadline = { passed: false };
  const timer = setTimeout(() => {
    deadline.passed = true;
    controller.abort();
  }, cfg.timeoutMs);
  const onCallerAbort = (): void => controller.abort();
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  const host = safeHost(cfg.url);
  const started = Date.now();
  try {
    const init = { method: 'POST', headers: cfg.headers(), body: JSON.stringify(body), signal: controller.signal };
    const response = await fetch(cfg.url, init);
    const text = await response.text();
    cfg.log.debug({ event: 'llm.http', purpose, status: response.status, ms: Date.now() - started }, 'llm.http');
    if (!response.ok) {
      const snippet = cfg.redact(text.replace(/\s+/g, ' ').trim().slice(0, 300));
      const said = snippet ? `: ${snippet}` : '';
      const error = new LlmError('http', `model server ${host} answered HTTP ${response.status}${said}`, response.status);
      return { kind: 'error', error, retryable: RETRYABLE_STATUS(response.status), retryAfterMs: retryAfterMs(response.headers) };
    }
    return { kind: 'reply', reply: readEnvelope(text, host, cfg.redact) };
  } catch (err) {
    if (err instanceof LlmError) return { kind: 'error', error: err, retryable: false, retryAfterMs: null };
    if (deadline.passed) {
      const error = new LlmError('timeout', `model server ${host} did not answer within ${cfg.timeoutMs} ms (${purpose})`);
      return { kind: 'error', error, retryable: false, retryAfterMs: null };
    }
    if (signal?.aborted) {
      return { kind: 'error', error: new LlmError('aborted', `model call (${purpose}) aborted`), retryable: false, retryAfterMs: null };
    }
    // undici puts the useful part (ECONNREFUSED, ECONNRESET, …) in `cause`; neither carries request headers.
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    const message = cfg.redact(`${err instanceof Error ? err.message : String(err)}${cause}`);
    const error = new LlmError('network', `model server ${host} unreachable (${message})`);
    return { kind: 'error', error, retryable: true, retryAfterMs: null };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCallerAbort);
  }
}

/** Reads `choices[0]` and `usage` from a chat-completions response body (an I/O boundary: shapes are checked by hand). */
function readEnvelope(text: string, host: string, redact: (s: string) => string): ChatReply {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new LlmError('http', `model server ${host} sent a response that is not JSON: ${redact(text.slice(0, 200))}`);
  }
  const root = asRecord(parsed);
  const choices = root?.choices;
  const first = Array.isArray(choices) ? asRecord(choices[0]) : null;
  if (!root || !first) throw new LlmError('http', `model server ${host} sent a response without choices`);
  const message = asRecord(first.message);
  const content = message?.content;
  const finish = first.finish_reason;
  const usage = asRecord(root.usage);
  const model = root.model;
  return {
    content: typeof content === 'string' ? content : null,
    finishReason: typeof finish === 'string' ? finish : null,
    model: typeof model === 'string' && model !== '' ? model : null,
    usage: { promptTokens: count(usage?.prompt_tokens), completionTokens: count(usage?.completion_tokens), calls: 0 },
  };
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return isRecord(value) ? value : null;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the model server';
  }
}
