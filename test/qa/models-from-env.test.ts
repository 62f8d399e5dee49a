import { describe, expect, it } from 'vitest';
import { llmModelFactory, qaModelsFromEnv, roleEnv, roleModel } from '../../src/qa/models-from-env.js';
import { ScriptedModel } from './scripted-model.js';

const shared = { SLOPGATE_LLM_BASE_URL: 'http://llm.internal/v1', SLOPGATE_LLM_MODEL: 'qwen', SLOPGATE_LLM_API_KEY: 'k-shared' };

describe('qa/models-from-env', () => {
  it('falls back key by key to SLOPGATE_LLM_*', () => {
    const env = roleEnv({ ...shared, SLOPGATE_QA_DEFENDER_MODEL: 'bigger' }, 'defender');
    expect(env).toMatchObject({
      SLOPGATE_QA_DEFENDER_BASE_URL: 'http://llm.internal/v1',
      SLOPGATE_QA_DEFENDER_MODEL: 'bigger',
      SLOPGATE_QA_DEFENDER_API_KEY: 'k-shared',
    });
  });

  it('never lends the shared key to a role that talks to another host', () => {
    const env = roleEnv({ ...shared, SLOPGATE_QA_QUESTIONER_BASE_URL: 'http://other.example/v1' }, 'questioner');
    expect(env.SLOPGATE_QA_QUESTIONER_API_KEY).toBeUndefined();
    expect(env.SLOPGATE_QA_QUESTIONER_MODEL).toBe('qwen');
  });

  it('says why there is no model: nothing configured, no client, or refused settings', () => {
    const none = qaModelsFromEnv({}, () => new ScriptedModel('m', []));
    expect(none).toEqual({ reason: expect.stringContaining('set SLOPGATE_QA_QUESTIONER_BASE_URL or SLOPGATE_LLM_BASE_URL') });
    expect(roleModel(shared, 'navigator', undefined)).toEqual({ reason: 'this build has no LLM client wired in' });
    const refused = roleModel(shared, 'navigator', () => {
      throw new Error('SLOPGATE_NAVIGATOR_TIMEOUT_MS must be a number\nmore');
    });
    expect(refused).toEqual({ reason: 'the navigator model settings were refused: SLOPGATE_NAVIGATOR_TIMEOUT_MS must be a number' });
    const both = qaModelsFromEnv(shared, (_env, prefix) => new ScriptedModel(prefix, []));
    const names = 'questioner' in both ? [both.questioner.model, both.defender.model] : [];
    expect(names).toEqual(['SLOPGATE_QA_QUESTIONER_', 'SLOPGATE_QA_DEFENDER_']);
  });

  it("a refused setting names the variable the user set: the role's own, or the SLOPGATE_LLM_ one it fell back to", () => {
    const shared = roleModel({ SLOPGATE_LLM_BASE_URL: 'notaurl', SLOPGATE_LLM_MODEL: 'm' }, 'questioner', llmModelFactory);
    expect(shared).toEqual({
      reason: expect.stringMatching(/^the questioner model settings were refused: SLOPGATE_LLM_BASE_URL is not a valid URL/),
    });
    expect(JSON.stringify(shared)).not.toContain('notaurl');
    const own = roleModel(
      { SLOPGATE_LLM_BASE_URL: 'http://127.0.0.1:1/v1', SLOPGATE_LLM_MODEL: 'm', SLOPGATE_QA_DEFENDER_BASE_URL: 'notaurl' },
      'defender',
      llmModelFactory,
    );
    expect(own).toEqual({ reason: expect.stringMatching(/refused: SLOPGATE_QA_DEFENDER_BASE_URL is not a valid URL/) });
  });
});
