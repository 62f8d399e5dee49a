import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/core/config-schema.js';
import { llmGateOptions } from '../../src/gate/llm-stage-options.js';
import type { Env } from '../../src/qa/models-from-env.js';
import { ScriptedModel } from '../qa/scripted-model.js';

const env = { SLOPGATE_LLM_BASE_URL: 'http://127.0.0.1:9/v1', SLOPGATE_LLM_MODEL: 'local' };
const factory = (_env: Env, prefix: string) => new ScriptedModel(prefix, []);
const pr = { title: 'Validate ports', body: 'Closes #4' };

describe('gate/llm-stage-options: what the App and the CLI hand the gate', () => {
  it('asks for nothing when both phases are off and not forced', () => {
    expect(llmGateOptions(configSchema.parse({}), pr, false, { env, modelFactory: factory })).toEqual({});
  });

  it('builds both Q&A roles and the navigator from the environment, with the PR text', () => {
    const config = configSchema.parse({ qa: { enabled: true }, navigator: { enabled: true } });
    const out = llmGateOptions(config, pr, false, { env, modelFactory: factory });
    expect(out.qa).toMatchObject({ force: false, title: 'Validate ports', body: 'Closes #4' });
    expect(out.qa?.questioner?.model).toBe('SLOPGATE_QA_QUESTIONER_');
    expect(out.qa?.defender?.model).toBe('SLOPGATE_QA_DEFENDER_');
    expect(out.navigator?.model?.model).toBe('SLOPGATE_NAVIGATOR_');
  });

  it('passes the reason on when Q&A has no model, and leaves the navigator out', () => {
    const config = configSchema.parse({ qa: { enabled: true }, navigator: { enabled: true } });
    const out = llmGateOptions(config, pr, false, { env: {}, modelFactory: factory });
    expect(out.qa?.questioner).toBeUndefined();
    expect(out.qa?.noModelReason).toContain('no model configured for the questioner');
    expect(out.navigator).toBeUndefined();
  });
});
