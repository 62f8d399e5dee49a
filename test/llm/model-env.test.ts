import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { modelFromEnv } from '../../src/llm/model-env.js';
import { OpenAiModel } from '../../src/llm/openai-model.js';
import { LlmError } from '../../src/llm/port.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';

function configError(fn: () => unknown): LlmError {
  try {
    fn();
  } catch (err) {
    if (err instanceof LlmError && err.kind === 'config') return err;
    throw err;
  }
  throw new Error('expected a config error');
}

let llm: LlmServer;
beforeAll(async () => {
  llm = await startLlmServer();
});
afterAll(async () => {
  await llm.close();
});

const ask = { messages: [{ role: 'user' as const, content: 'hi' }], schema: z.object({ ok: z.boolean() }), purpose: 'test' };

describe('modelFromEnv', () => {
  it('is null when nothing is configured (blank values count as unset), whatever the tuning variables say', () => {
    expect(modelFromEnv({})).toBeNull();
    expect(modelFromEnv({ SLOPGATE_LLM_BASE_URL: ' ', SLOPGATE_LLM_MODEL: '', SLOPGATE_LLM_TIMEOUT_MS: '5000' })).toBeNull();
    expect(modelFromEnv(llm.env(), 'SLOPGATE_QA_QUESTIONER')).toBeNull();
  });

  it('names what is missing when half-configured', () => {
    const noModel = configError(() => modelFromEnv({ SLOPGATE_LLM_BASE_URL: 'http://127.0.0.1:1/v1' }));
    expect(noModel.message).toContain('SLOPGATE_LLM_MODEL is not set');
    const keyOnly = configError(() => modelFromEnv({ SLOPGATE_LLM_API_KEY: 'sk-abc' }));
    expect(keyOnly.message).toContain('SLOPGATE_LLM_BASE_URL and SLOPGATE_LLM_MODEL are not set');
    expect(keyOnly.message).not.toContain('sk-abc');
  });

  it('reads another prefix on its own, with its own endpoint, model and key', async () => {
    const env = { ...llm.env({ model: 'main' }), ...llm.env({ prefix: 'SLOPGATE_QA_QUESTIONER', model: 'asker', apiKey: 'qa-key' }) };
    const qa = modelFromEnv(env, 'SLOPGATE_QA_QUESTIONER');
    expect(qa?.model).toBe('asker');
    llm.reply({ content: '{"ok": true}' }, { content: '{"ok": true}' });
    await qa?.completeJson(ask);
    await modelFromEnv(env)?.completeJson(ask);
    const [qaCall, mainCall] = llm.requests.slice(-2);
    expect(qaCall?.body?.model).toBe('asker');
    expect(qaCall?.headers.authorization).toBe('Bearer qa-key');
    expect(mainCall?.body?.model).toBe('main');
    // The QA key is not sent to the main prefix's endpoint.
    expect(mainCall?.headers.authorization).toBeUndefined();
  });

  it('applies the timeout, retry and no-think variables', async () => {
    const extra = { SLOPGATE_LLM_TIMEOUT_MS: '250', SLOPGATE_LLM_MAX_RETRIES: '0', SLOPGATE_LLM_NO_THINK: 'yes' };
    const m = modelFromEnv(llm.env({ extra }));
    llm.reply({ content: '{"ok": true}' });
    await m?.completeJson(ask);
    expect(llm.requests.at(-1)?.messages).toEqual([{ role: 'user', content: 'hi\n/no_think' }]);
    llm.reply({ hang: true });
    await expect(m?.completeJson(ask)).rejects.toMatchObject({ kind: 'timeout' });
    llm.reply({ status: 503 });
    await expect(m?.completeJson(ask)).rejects.toMatchObject({ kind: 'http', status: 503, usage: { calls: 1 } });
    llm.assertDone();
  });

  it('rejects bad tuning values, keys that cannot be a header, credentials in the URL and keys over remote plain http', () => {
    const base = llm.env();
    expect(configError(() => modelFromEnv({ ...base, SLOPGATE_LLM_TIMEOUT_MS: '2m' })).message).toContain('SLOPGATE_LLM_TIMEOUT_MS');
    expect(configError(() => modelFromEnv({ ...base, SLOPGATE_LLM_NO_THINK: 'maybe' })).message).toContain('SLOPGATE_LLM_NO_THINK');
    const badKey = configError(() => modelFromEnv({ ...base, SLOPGATE_LLM_API_KEY: 'sk-a b\nc' }));
    expect(badKey.message).not.toContain('sk-a');
    expect(badKey.message).toMatch(/^SLOPGATE_LLM_API_KEY contains spaces/);
    const creds = configError(() => modelFromEnv({ ...base, SLOPGATE_LLM_BASE_URL: 'https://user:pw-secret@llm.example/v1' }));
    expect(creds.message).not.toContain('pw-secret');
    expect(creds.message).toBe('SLOPGATE_LLM_BASE_URL must not carry credentials; put the key in SLOPGATE_LLM_API_KEY');
    const ftp = configError(() => modelFromEnv({ ...base, SLOPGATE_LLM_BASE_URL: 'ftp://llm.example/v1' }));
    expect(ftp.message).toMatch(/^SLOPGATE_LLM_BASE_URL must be an http or https URL/);
    const remote = { SLOPGATE_LLM_BASE_URL: 'http://llm.internal:8000/v1', SLOPGATE_LLM_MODEL: 'm', SLOPGATE_LLM_API_KEY: 'sk-x' };
    expect(configError(() => modelFromEnv(remote)).message).toMatch(/plain http .*set SLOPGATE_LLM_ALLOW_HTTP=1/);
    expect(modelFromEnv({ ...remote, SLOPGATE_LLM_ALLOW_HTTP: '1' })).toBeInstanceOf(OpenAiModel);
    // Without a key, plain http to a remote host is allowed (nothing secret to send).
    expect(modelFromEnv({ ...remote, SLOPGATE_LLM_API_KEY: '' })).toBeInstanceOf(OpenAiModel);
  });

  it('accepts a base URL that already ends with /chat/completions', async () => {
    const m = new OpenAiModel({ baseUrl: `${llm.baseUrl}/chat/completions/`, model: 'm' });
    llm.reply({ content: '{"ok": false}' });
    expect((await m.completeJson(ask)).value).toEqual({ ok: false });
    expect(llm.requests.at(-1)?.path).toBe('/v1/chat/completions/');
  });
});
