import type { z } from 'zod';
import { silentLogger, type Logger } from '../core/trace.js';
import { DEFAULT_BACKOFF, sleep as realSleep, type BackoffPolicy } from './backoff.js';
import { addUsage, emptyUsage, postChat, type ChatHttpConfig } from './chat-http.js';
import { parseJsonReply, stripThinking } from './json-reply.js';
import { LlmError, type ChatMessage, type JsonModel, type JsonRequest, type JsonResult, type TokenUsage } from './port.js';
import type { TokenLedger } from './token-ledger.js';

/*
 * Why plain `fetch` and not the official `openai` package: its current major (7.x) declares
 * `engines.node >=22`, which breaks our `^20.18.1 || >=22`; pinning an old major for one endpoint is worse
 * than ~150 lines we own. Its retries would also hide what we must see: the tokens of every HTTP call
 * (summed over retries and corrective turns), a Retry-After cap that refuses to retry early, and a
 * guarantee that no message built from a server's reply can carry the key. Node 20's global fetch (undici)
 * gives us the HTTP client and AbortSignal the timeout.
 */

export interface OpenAiModelOptions {
  /** e.g. `http://127.0.0.1:8080/v1`; `/chat/completions` is appended unless the URL already ends with it. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer …`; omit for local servers that need none. Never logged, never in an error. */
  apiKey?: string | null;
  /**
   * What a configuration error calls each setting: the environment variable it came from
   * (`SLOPGATE_LLM_BASE_URL`, see model-env.ts), so the message says what to change. Plain words by default.
   */
  settingNames?: Partial<SettingNames>;
  /** Per HTTP call (connect, wait and body). Default 120 s. */
  timeoutMs?: number;
  /** HTTP retries on 408/429/5xx and network errors, per request. Default 3. */
  maxRetries?: number;
  /** Replies asked for per request (the first plus corrective turns). Default 3. */
  maxAttempts?: number;
  /** Qwen3-class models: `/no_think` is appended to the system prompt (reasoning blocks are always stripped). */
  noThink?: boolean;
  /** Allow sending the key over plain http to a host that is not loopback. Default false. */
  allowInsecureHttp?: boolean;
  backoff?: Partial<BackoffPolicy>;
  /** Injectable wait (tests record the delays asked for instead of measuring time). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  log?: Logger;
  /** Every request's tokens are added here, failed ones too. */
  ledger?: TokenLedger;
}

export interface SettingNames {
  baseUrl: string;
  model: string;
  apiKey: string;
  /** The switch that allows the key over plain http, when there is one. */
  allowHttp?: string;
}

const PLAIN_NAMES: SettingNames = { baseUrl: 'the model base URL', model: 'the model name', apiKey: 'the API key' };

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_MAX_ATTEMPTS = 3;
const NO_THINK = '/no_think';
const MAX_FEEDBACK_CHARS = 1_500;

export class OpenAiModel implements JsonModel {
  readonly model: string;
  readonly #apiKey: string | null;
  readonly #http: ChatHttpConfig;
  readonly #maxAttempts: number;
  readonly #noThink: boolean;
  readonly #log: Logger;
  readonly #ledger: TokenLedger | undefined;

  constructor(options: OpenAiModelOptions) {
    const names = { ...PLAIN_NAMES, ...options.settingNames };
    const url = chatUrl(options.baseUrl, names);
    const apiKey = options.apiKey ? options.apiKey : null;
    if (apiKey !== null && !/^[\x21-\x7e]+$/.test(apiKey)) {
      // undici would quote an invalid header value in its error; say what is wrong without the value.
      throw new LlmError('config', `${names.apiKey} contains spaces, line breaks or non-ASCII characters`);
    }
    if (apiKey !== null && url.protocol === 'http:' && !isLoopback(url.hostname) && !options.allowInsecureHttp) {
      const allow = names.allowHttp ? `set ${names.allowHttp}=1` : 'allow insecure http explicitly';
      const why = `refusing to send ${names.apiKey} over plain http to ${url.host}: use https (or ${allow})`;
      throw new LlmError('config', why);
    }
    if (options.model.trim() === '') throw new LlmError('config', `${names.model} is empty`);
    this.model = options.model.trim();
    this.#apiKey = apiKey;
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.#noThink = options.noThink ?? false;
    this.#log = options.log ?? silentLogger;
    this.#ledger = options.ledger;
    this.#http = {
      url: url.toString(),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: Math.max(0, options.maxRetries ?? DEFAULT_MAX_RETRIES),
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
      sleep: options.sleep ?? realSleep,
      log: this.#log,
      redact: (text) => this.#redact(text),
      headers: () => this.#headers(),
    };
  }

  async completeJson<T>(request: JsonRequest<T>): Promise<JsonResult<T>> {
    const conversation: ChatMessage[] = this.#noThink ? withNoThink(request.messages) : request.messages.map((m) => ({ ...m }));
    let usage = emptyUsage();
    let lastKind: 'invalid-json' | 'schema' = 'invalid-json';
    let lastError = '';
    let lastReply = '';
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const body: Record<string, unknown> = { model: this.model, messages: conversation };
      if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
      if (request.temperature !== undefined) body.temperature = request.temperature;
      let reply;
      try {
        reply = await postChat(this.#http, body, request.purpose, request.signal);
      } catch (err) {
        if (!(err instanceof LlmError)) throw err;
        throw this.#fail(request.purpose, err.kind, err.message, addUsage(usage, err.usage ?? emptyUsage()), err.status);
      }
      usage = addUsage(usage, reply.usage);
      if (reply.finishReason === 'length') {
        const limit = request.maxTokens === undefined ? 'the server limit' : `max_tokens ${request.maxTokens}`;
        const message = `the model's reply was cut off at ${limit} (${request.purpose}, attempt ${attempt})`;
        throw this.#fail(request.purpose, 'truncated', message, usage);
      }
      lastReply = stripThinking(reply.content ?? '');
      const parsed = parseJsonReply(lastReply);
      if (parsed.ok) {
        const checked = request.schema.safeParse(parsed.value);
        if (checked.success) {
          this.#ledger?.add(request.purpose, usage);
          const done = { event: 'llm.done', purpose: request.purpose, model: this.model, attempts: attempt, repaired: parsed.repaired };
          this.#log.info({ ...done, ...usage }, 'llm.done');
          return { value: checked.data, usage, model: reply.model ?? this.model, attempts: attempt };
        }
        lastKind = 'schema';
        lastError = describeSchemaError(checked.error);
      } else {
        lastKind = 'invalid-json';
        lastError = reply.content === null ? 'the reply had no text content' : parsed.error;
      }
      const rejected = { event: 'llm.rejected', purpose: request.purpose, attempt, kind: lastKind, error: this.#redact(lastError) };
      this.#log.info(rejected, 'llm.rejected');
      conversation.push({ role: 'assistant', content: lastReply }, { role: 'user', content: correctiveTurn(lastError) });
    }
    const snippet = JSON.stringify(lastReply.slice(0, 200));
    const message =
      `no usable JSON from the model after ${this.#maxAttempts} attempt(s) (${request.purpose}): ${lastError}; ` +
      `last reply began ${snippet}`;
    throw this.#fail(request.purpose, lastKind, message, usage);
  }

  #fail(purpose: string, kind: LlmError['kind'], message: string, usage: TokenUsage, status?: number): LlmError {
    this.#ledger?.add(purpose, usage);
    const error = new LlmError(kind, this.#redact(message), status, usage);
    this.#log.warn({ event: 'llm.failed', purpose, model: this.model, kind, status, message: error.message, ...usage }, 'llm.failed');
    return error;
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#apiKey !== null) headers.authorization = `Bearer ${this.#apiKey}`;
    return headers;
  }

  #redact(text: string): string {
    return this.#apiKey === null ? text : text.split(this.#apiKey).join('[redacted]');
  }
}

/** The corrective user turn: what was wrong (capped) and what to send instead. */
export function correctiveTurn(error: string): string {
  const why = error.length > MAX_FEEDBACK_CHARS ? `${error.slice(0, MAX_FEEDBACK_CHARS)}…` : error;
  return [
    `Your previous reply could not be used: ${why}`,
    'Reply again with exactly one JSON object of the requested shape: no markdown fences, no text before or after it.',
    'Start with { and end with }.',
  ].join('\n');
}

function describeSchemaError(error: z.ZodError): string {
  const lines = error.issues.slice(0, 10).map((issue) => {
    const at = issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.');
    return `- at ${at}: ${issue.message}`;
  });
  const more = error.issues.length > 10 ? `\n- and ${error.issues.length - 10} more` : '';
  return `the JSON does not match the required shape:\n${lines.join('\n')}${more}`;
}

/** Copies the messages with `/no_think` at the end of the first system message (or the last user message). */
export function withNoThink(messages: ChatMessage[]): ChatMessage[] {
  const copy = messages.map((m) => ({ ...m }));
  if (copy.some((m) => m.content.includes(NO_THINK))) return copy;
  const target = copy.find((m) => m.role === 'system') ?? [...copy].reverse().find((m) => m.role === 'user');
  if (target) target.content = `${target.content}\n${NO_THINK}`;
  else copy.unshift({ role: 'system', content: NO_THINK });
  return copy;
}

/** The chat endpoint under `baseUrl`; errors name the setting and never echo its value (it may hold a secret). */
function chatUrl(baseUrl: string, names: SettingNames): URL {
  const example = 'e.g. http://127.0.0.1:8080/v1 or https://api.example.com/v1';
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new LlmError('config', `${names.baseUrl} is not a valid URL: give the server's address with its scheme, ${example}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LlmError('config', `${names.baseUrl} must be an http or https URL, ${example}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new LlmError('config', `${names.baseUrl} must not carry credentials; put the key in ${names.apiKey}`);
  }
  if (!/\/chat\/completions\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  return url;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127(\.\d{1,3}){3}$/.test(hostname);
}
