import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../src/core/trace.js';
import { modelFromEnv } from '../../src/llm/model-env.js';
import { OpenAiModel, type OpenAiModelOptions } from '../../src/llm/openai-model.js';
import { LlmError, type JsonRequest } from '../../src/llm/port.js';
import { TokenLedger } from '../../src/llm/token-ledger.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';

const Patch = z.object({ path: z.string(), content: z.string() });
type Patch = z.infer<typeof Patch>;

const request = (extra: Partial<JsonRequest<Patch>> = {}): JsonRequest<Patch> => ({
  messages: [
    { role: 'system', content: 'You fix files.' },
    { role: 'user', content: 'Fix a.py' },
  ],
  schema: Patch,
  purpose: 'refine',
  ...extra,
});

let llm: LlmServer;
let delays: number[];

beforeEach(async () => {
  llm = await startLlmServer();
  delays = [];
});
afterEach(async () => {
  await llm.close();
});

/** A model on the scripted server whose waits are recorded (and take no time) instead of measured. */
function model(options: Partial<OpenAiModelOptions> = {}): OpenAiModel {
  return new OpenAiModel({
    baseUrl: llm.baseUrl,
    model: 'qwen3-coder',
    apiKey: 'sk-test-0123456789',
    sleep: async (ms) => {
      delays.push(ms);
    },
    backoff: { random: () => 0 },
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof LlmError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('OpenAiModel against a local model server', () => {
  it('sends the model, messages, key and limits, and returns the validated value', async () => {
    const usage = { prompt_tokens: 120, completion_tokens: 30 };
    llm.reply({ content: '{"path": "a.py", "content": "x = 1\\n"}', model: 'qwen3-coder-30b', usage });
    const result = await model().completeJson(request({ maxTokens: 2000, temperature: 0 }));
    expect(result).toEqual({
      value: { path: 'a.py', content: 'x = 1\n' },
      usage: { promptTokens: 120, completionTokens: 30, calls: 1 },
      model: 'qwen3-coder-30b',
      attempts: 1,
    });
    const [sent] = llm.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer sk-test-0123456789');
    expect(sent?.body).toMatchObject({ model: 'qwen3-coder', max_tokens: 2000, temperature: 0 });
    expect(sent?.messages).toEqual(request().messages);
    llm.assertDone();
  });

  it('takes JSON from a fenced reply, from chatty text and from repairable JSON', async () => {
    llm.reply(
      { content: 'Here is the patch:\n```json\n{"path": "a.py", "content": "ok"}\n```' },
      { content: 'Sure. {"path": "b.py", "content": "ok"} Let me know if you need more.' },
      { content: '{"path": "c.py", "content": "ok",}' },
      { content: '{"path": "d.py", "content": "print("hi")"}' },
      { content: '{"path": "e.py", "content": "line one\nline two"}' },
    );
    const m = model();
    const paths: string[] = [];
    const contents: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await m.completeJson(request());
      expect(r.attempts).toBe(1);
      paths.push(r.value.path);
      contents.push(r.value.content);
    }
    expect(paths).toEqual(['a.py', 'b.py', 'c.py', 'd.py', 'e.py']);
    expect(contents.slice(3)).toEqual(['print("hi")', 'line one\nline two']);
    expect(llm.requests).toHaveLength(5);
  });

  it('sends a corrective turn quoting the zod error, then accepts a valid reply', async () => {
    llm.reply({ content: '{"path": "a.py"}' }, { content: '{"path": "a.py", "content": "fixed"}' });
    const result = await model().completeJson(request());
    expect(result.value.content).toBe('fixed');
    expect(result.attempts).toBe(2);
    expect(result.usage).toEqual({ promptTokens: 20, completionTokens: 10, calls: 2 });
    const second = llm.requests[1]?.messages ?? [];
    expect(second).toHaveLength(4);
    expect(second[2]).toEqual({ role: 'assistant', content: '{"path": "a.py"}' });
    expect(second[3]?.role).toBe('user');
    expect(second[3]?.content).toContain('at content:');
    expect(second[3]?.content).toContain('does not match the required shape');
  });

  it('gives up after 3 invalid replies with the kind of the last failure', async () => {
    llm.reply({ content: 'no JSON here' }, { content: '{"path": ' }, { content: '{"path": 1, "content": "x"}' });
    const error = await failure(model().completeJson(request()));
    expect(error.kind).toBe('schema');
    expect(error.message).toContain('after 3 attempt(s)');
    expect(error.usage).toEqual({ promptTokens: 30, completionTokens: 15, calls: 3 });
    expect(llm.requests[1]?.messages[3]?.content).toContain('no JSON object');
    expect(llm.requests[2]?.messages[5]?.content).toContain('not valid JSON');
    llm.assertDone();

    llm.reply({ content: 'nope' }, { content: 'still nope' }, { content: '[1]' });
    const invalid = await failure(model().completeJson(request()));
    expect(invalid.kind).toBe('invalid-json');
    expect(invalid.message).toContain('no JSON object');
    expect(invalid.message).toContain('last reply began "[1]"');
  });

  it('reports a truncated reply as its own error without asking again', async () => {
    llm.reply({ content: '{"path": "a.py", "content": "def f(', finishReason: 'length' });
    const error = await failure(model().completeJson(request({ maxTokens: 50 })));
    expect(error.kind).toBe('truncated');
    expect(error.message).toContain('max_tokens 50');
    expect(llm.requests).toHaveLength(1);
    llm.assertDone();
  });

  it('waits what Retry-After asks on 429 (seconds or a date), then retries', async () => {
    const inTwoSeconds = new Date(Date.now() + 2_000).toUTCString();
    llm.reply(
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 503, headers: { 'retry-after': inTwoSeconds } },
      { content: '{"path": "a.py", "content": "x"}' },
    );
    const result = await model().completeJson(request());
    expect(result.value.path).toBe('a.py');
    expect(result.usage.calls).toBe(3);
    expect(result.attempts).toBe(1);
    expect(llm.requests).toHaveLength(3);
    expect(delays[0]).toBe(1_000);
    // An HTTP date has one-second resolution: somewhere in (0, 2 s].
    expect(delays[1]).toBeGreaterThan(0);
    expect(delays[1]).toBeLessThanOrEqual(2_000);
    llm.assertDone();
  });

  it('does not retry early when Retry-After is beyond the cap', async () => {
    llm.reply({ status: 429, headers: { 'retry-after': '3600' } });
    const error = await failure(model().completeJson(request()));
    expect(error.kind).toBe('http');
    expect(error.status).toBe(429);
    expect(error.message).toContain('more than the cap');
    expect(delays).toEqual([]);
    expect(llm.requests).toHaveLength(1);
  });

  it('retries a 500 with exponential backoff and stops at the retry budget', async () => {
    llm.reply({ status: 500 }, { content: '{"path": "a.py", "content": "x"}' });
    const ok = await model().completeJson(request());
    expect(ok.usage).toEqual({ promptTokens: 10, completionTokens: 5, calls: 2 });
    expect(delays).toEqual([250]); // half of the 500 ms base step with random() = 0

    delays.length = 0;
    llm.reply({ status: 502 }, { status: 500 }, { status: 504 });
    const error = await failure(model({ maxRetries: 2 }).completeJson(request()));
    expect(error.kind).toBe('http');
    expect(error.status).toBe(504);
    expect(error.usage?.calls).toBe(3);
    expect(delays).toEqual([250, 500]);
    llm.assertDone();
  });

  it('prefers retry-after-ms, and does not retry a 200 whose body is not a chat completion', async () => {
    llm.reply({ status: 429, headers: { 'retry-after-ms': '20', 'retry-after': '5' } }, { content: '{"path": "a", "content": "b"}' });
    await model().completeJson(request());
    expect(delays).toEqual([20]);

    llm.reply({ body: '<html>proxy login</html>' });
    const error = await failure(model().completeJson(request()));
    expect(error.kind).toBe('http');
    expect(error.message).toContain('not JSON');
    llm.reply({ body: '{"object": "list", "data": []}' });
    expect((await failure(model().completeJson(request()))).message).toContain('without choices');
    expect(llm.requests).toHaveLength(4);
    llm.assertDone();
  });

  it('does not retry a 400', async () => {
    llm.reply({ status: 400, body: '{"error":{"message":"model not found"}}' });
    const error = await failure(model().completeJson(request()));
    expect(error.kind).toBe('http');
    expect(error.status).toBe(400);
    expect(error.message).toContain('model not found');
    expect(llm.requests).toHaveLength(1);
  });

  it('retries a network error, then reports it', async () => {
    const closed = await startLlmServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const error = await failure(model({ baseUrl, maxRetries: 1 }).completeJson(request()));
    expect(error.kind).toBe('network');
    expect(error.usage?.calls).toBe(2);
    expect(delays).toHaveLength(1);
  });

  it('times out a hanging server and does not retry the timeout', async () => {
    llm.reply({ hang: true });
    const error = await failure(model({ timeoutMs: 300 }).completeJson(request()));
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('300 ms');
    expect(llm.requests).toHaveLength(1);
  });

  it('honours the caller abort signal', async () => {
    llm.reply({ hang: true });
    const controller = new AbortController();
    const pending = model().completeJson(request({ signal: controller.signal }));
    while (llm.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    expect((await failure(pending)).kind).toBe('aborted');
  });

  it('with no-think, appends /no_think to the system prompt and strips reasoning from the reply', async () => {
    llm.reply({ content: '<think>\nThe user wants {"path": "wrong"}.\n</think>\n\n{"path": "a.py", "content": "x"}' });
    const result = await model({ noThink: true }).completeJson(request());
    expect(result.value.path).toBe('a.py');
    expect(llm.requests[0]?.messages[0]).toEqual({ role: 'system', content: 'You fix files.\n/no_think' });
    expect(llm.requests[0]?.messages[1]).toEqual({ role: 'user', content: 'Fix a.py' });

    llm.reply({ content: '{"path": "b.py", "content": "x"}' });
    await model().completeJson(request());
    expect(llm.requests[1]?.messages[0]?.content).toBe('You fix files.');
  });

  it('sums tokens per request and per run in the ledger, failed requests included', async () => {
    const ledger = new TokenLedger();
    llm.reply(
      { status: 500 },
      { content: '{"bad": 1}', usage: { prompt_tokens: 100, completion_tokens: 7 } },
      { content: '{"path": "a", "content": "b"}', usage: { prompt_tokens: 150, completion_tokens: 9 } },
      { content: '{"path": "a", "content": "b"}', usage: null },
      { content: 'x', finishReason: 'length', usage: { prompt_tokens: 40, completion_tokens: 64 } },
    );
    const m = model({ ledger });
    const first = await m.completeJson(request());
    expect(first.usage).toEqual({ promptTokens: 250, completionTokens: 16, calls: 3 });
    await m.completeJson(request({ purpose: 'qa.questioner' }));
    const truncated = await failure(m.completeJson(request()));
    expect(truncated.usage).toEqual({ promptTokens: 40, completionTokens: 64, calls: 1 });
    expect(ledger.byPurpose()).toEqual({
      refine: { promptTokens: 290, completionTokens: 80, calls: 4 },
      'qa.questioner': { promptTokens: 0, completionTokens: 0, calls: 1 },
    });
    expect(ledger.total()).toEqual({ promptTokens: 290, completionTokens: 80, calls: 5 });
  });

  it('never puts the API key in an error, a log line or the inspected model', async () => {
    const key = 'sk-live-SECRET-abcdef123456';
    const lines: string[] = [];
    const log = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(s) } });
    const m = modelFromEnv(llm.env({ apiKey: key, extra: { SLOPGATE_LLM_MAX_RETRIES: '1' } }), 'SLOPGATE_LLM', {
      log,
      overrides: { sleep: async () => undefined },
    });
    if (!m) throw new Error('expected a model');
    // A hostile or careless server that echoes the Authorization header back, in an error and in a reply.
    llm.reply({ status: 500, body: `upstream failed for Bearer ${key}` }, { status: 401, body: `{"error": "invalid key ${key}"}` });
    const http = await failure(m.completeJson(request()));
    llm.reply({ content: `I saw ${key}` }, { content: key }, { content: `{"path": "${key}"}` });
    const invalid = await failure(m.completeJson(request()));
    llm.reply({ hang: true });
    const timeout = await failure(
      modelFromEnv(llm.env({ apiKey: key, extra: { SLOPGATE_LLM_TIMEOUT_MS: '200' } }), 'SLOPGATE_LLM', { log })!.completeJson(request()),
    );

    expect(llm.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    expect(http.status).toBe(401);
    expect(http.message).toContain('invalid key [redacted]');
    expect(invalid.kind).toBe('schema');
    expect(timeout.kind).toBe('timeout');
    expect(lines.length).toBeGreaterThan(3);
    for (const error of [http, invalid, timeout]) {
      for (const text of [error.message, String(error), error.stack ?? '', JSON.stringify(error), inspect(error, { depth: 5 })]) {
        expect(text).not.toContain(key);
      }
    }
    expect(lines.join('')).not.toContain(key);
    expect(inspect(m, { depth: 5, showHidden: true })).not.toContain(key);
    expect(JSON.stringify(m)).not.toContain(key);
  });
});
