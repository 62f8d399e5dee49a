import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli/check.js';
import { LlmError } from '../../src/llm/port.js';
import type { Env } from '../../src/qa/models-from-env.js';
import { answers, portRepo, QUESTIONS } from './fixtures.js';
import { ScriptedModel } from './scripted-model.js';

const ENV = { SLOPGATE_LLM_BASE_URL: 'http://127.0.0.1:9/v1', SLOPGATE_LLM_MODEL: 'local' };
const args = { base: 'main', head: 'pr', format: 'markdown' as const, strict: false, noTests: true, qa: true };

describe('slopgate check --qa --format markdown', () => {
  it('shows the CRASHED block when the phase crashes', async () => {
    const repo = portRepo();
    let out = '';
    const failure = new LlmError('invalid-json', 'the reply was not JSON after 3 attempts');
    const factory = (_env: Env, prefix: string) => new ScriptedModel(prefix, [failure]);
    const code = await runCheck({ ...args, repo: repo.dir }, (s) => (out += s), { env: ENV, modelFactory: factory });
    expect(out).toContain('Q&A self-consistency phase CRASHED');
    expect(out).toContain('LlmError (invalid-json): the reply was not JSON after 3 attempts');
    expect(out).toContain('Treat this PR as ungated');
    expect(out).toContain('Q&A: crashed');
    expect(code).toBe(1);
  });

  it('shows the answers when it runs, with the head commit as the PR title', async () => {
    const repo = portRepo();
    let out = '';
    const models = new Map<string, ScriptedModel>();
    const factory = (env: Env, prefix: string) => {
      const m = new ScriptedModel(String(env[`${prefix}MODEL`]), prefix.includes('QUESTIONER') ? [QUESTIONS] : [answers('src/parse.ts:2')]);
      models.set(prefix, m);
      return m;
    };
    const env = { ...ENV, SLOPGATE_QA_DEFENDER_MODEL: 'bigger' };
    await runCheck({ ...args, repo: repo.dir }, (s) => (out += s), { env, modelFactory: factory });
    expect(out).toContain('### Q&A self-consistency');
    expect(out).toContain('Q&A: 2 handled / 0 gap / 1 uncertain');
    expect(models.get('SLOPGATE_QA_QUESTIONER_')!.model).toBe('local');
    expect(models.get('SLOPGATE_QA_DEFENDER_')!.model).toBe('bigger');
    expect(models.get('SLOPGATE_QA_QUESTIONER_')!.contents('user')[0]).toContain('pr commit 1');
  });

  it('says it was skipped, and why, without a model', async () => {
    let out = '';
    await runCheck({ ...args, repo: portRepo().dir }, (s) => (out += s), { env: {} });
    expect(out).toContain('Q&A: not run (no model configured for the questioner');
    expect(out).toContain('Not run: no model configured');
  });
});
