/** How long to wait before the next HTTP try: the server's `Retry-After` when it sent one, else backoff with jitter. */

export interface BackoffPolicy {
  /** First backoff step in ms; doubles each try. */
  baseMs: number;
  /** Ceiling of one backoff step. */
  maxMs: number;
  /** The longest `Retry-After` honoured; a server asking for more is not retried (we never retry early). */
  maxRetryAfterMs: number;
  /** 0 ≤ random() < 1; injectable so tests are exact. */
  random?: () => number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 8_000, maxRetryAfterMs: 60_000 };

/**
 * Parses `retry-after-ms` (OpenAI's extension) or `Retry-After` (delay-seconds or an HTTP date) into ms.
 * Returns null when absent or unreadable; a date in the past is 0.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | null {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get('retry-after');
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/** Exponential backoff with jitter for try `n` (0-based): a random point in the upper half of the step. */
export function backoffMs(n: number, policy: BackoffPolicy): number {
  const step = Math.min(policy.maxMs, policy.baseMs * 2 ** n);
  const random = policy.random ?? Math.random;
  return Math.round(step / 2 + random() * (step / 2));
}

/** What an aborted signal rejects with: its reason (an Error unless the caller aborted with something else). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      if (signal) reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
