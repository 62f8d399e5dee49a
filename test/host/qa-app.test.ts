import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prJobResult } from '../../src/host/pr-job.js';
import { BODY_END, BODY_START } from '../../src/host/pr-body.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { cleanUpPrs, completionOf, nextJob, setupPr, type PrSetup } from './pr-setup.js';

/**
 * The Q&A phase in the App's gate job, against the real OpenAI-compatible client talking to a local
 * model server (no scripted model object): the PR body carries the Q&A block, replaced in place on
 * every run; a crash is loud and never a pass.
 */
const TIMEOUT = 120_000;
const QA_CONFIG = 'qa:\n  enabled: true\n';

const QUESTIONS = {
  questions: [
    { slot: 'evidence', question: 'Which changed line sets x to its new value of two?' },
    { slot: 'edge', question: 'What happens to callers that relied on x being one?' },
    { slot: 'scope', question: 'Was changing the exported constant needed at all?' },
  ],
};

function answers(edge: 'handled' | 'gap' = 'handled') {
  return {
    answers: [
      { slot: 'evidence', verdict: 'handled', evidence: 'src/app.js:1', rationale: 'Line 1 now exports x = 2.' },
      { slot: 'edge', verdict: edge, evidence: edge === 'handled' ? 'src/app.js:1' : null, rationale: 'Callers read the constant.' },
      { slot: 'scope', verdict: 'uncertain', evidence: null, rationale: 'Whether the value had to change is a product call.' },
    ],
  };
}

const json = (v: unknown) => ({ content: JSON.stringify(v) });

let llm: LlmServer;
beforeEach(async () => {
  llm = await startLlmServer();
});
afterEach(async () => {
  await llm.close();
});
afterAll(cleanUpPrs);

async function qaPr(): Promise<PrSetup> {
  const s = await setupPr(
    { 'src/app.js': 'export const x = 2;\n' },
    {
      config: QA_CONFIG,
      deps: { llm: { env: llm.env({ extra: { SLOPGATE_LLM_MAX_RETRIES: '1' } }) } },
    },
  );
  s.host.pr.title = 'Raise x to two';
  s.host.pr.body = 'Why: two is the new default.';
  return s;
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe('Q&A in the App (real local model server)', { timeout: TIMEOUT }, () => {
  it('three questions are asked and answered; the PR body shows them, replaced in place on the next run', async () => {
    const s = await qaPr();
    llm.reply(json(QUESTIONS), json(answers()));
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    llm.assertDone();
    expect(llm.requests).toHaveLength(2);
    // The questioner saw the PR's title; the author's text, not slopgate's own section.
    expect(llm.requests[0]!.messages.map((m) => m.content).join('\n')).toContain('Raise x to two');
    const first = s.host.pr.body ?? '';
    expect(first.startsWith('Why: two is the new default.')).toBe(true);
    expect(first).toContain('#### Q&A self-consistency');
    expect(first).toContain('2 handled · 0 gap · 1 uncertain');
    for (const q of QUESTIONS.questions) expect(first).toContain(q.question);
    expect(completionOf(s).summary).toContain('Q&A: 2 handled / 0 gap / 1 uncertain');

    // Second run: the edge answer is now a gap. The section is rewritten, never appended.
    llm.reply(json(QUESTIONS), json(answers('gap')));
    const again = await nextJob(s);
    expect(await prJobResult(s.host, again, s.deps)).toBe('reported');
    llm.assertDone();
    const questionerSecond = llm.requests[2]!.messages.map((m) => m.content).join('\n');
    expect(questionerSecond).not.toContain(BODY_START);
    const second = s.host.pr.body ?? '';
    expect(count(second, BODY_START)).toBe(1);
    expect(count(second, BODY_END)).toBe(1);
    expect(count(second, 'Q&A self-consistency')).toBe(1);
    expect(second).toContain('1 handled · 1 gap · 1 uncertain');
    expect(second).not.toContain('2 handled · 0 gap');
    expect(second.startsWith('Why: two is the new default.')).toBe(true);
    expect(completionOf(s, again).conclusion).not.toBe('success');
  });

  it('a server that answers 500 until the retries run out: CRASHED block in the PR body, and no pass', async () => {
    const s = await qaPr();
    llm.reply({ status: 500 }, { status: 500 });
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    llm.assertDone();
    const body = s.host.pr.body ?? '';
    expect(body).toContain('Q&A self-consistency phase CRASHED');
    expect(body).toContain('Treat this PR as ungated');
    expect(body).toContain('LlmError');
    const out = completionOf(s);
    expect(out.conclusion).not.toBe('success');
    expect(out.summary).toContain('Q&A: crashed');
    expect(body).not.toMatch(/\*\*PASS\*\*/);
  });

  it('garbage three times: the questioner gives up, and the crash is shown the same way', async () => {
    const s = await qaPr();
    llm.reply({ content: 'sure! here are questions' }, { content: 'not json either' }, { content: '{"questions": "no"' });
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    llm.assertDone();
    const body = s.host.pr.body ?? '';
    expect(body).toContain('Q&A self-consistency phase CRASHED');
    expect(body).toMatch(/LlmError \((invalid-json|schema)\)/);
    expect(completionOf(s).conclusion).not.toBe('success');
  });

  it('without qa.enabled the App asks no model and the PR body says the phase did not run', async () => {
    const s = await setupPr({ 'src/app.js': 'export const x = 2;\n' }, { deps: { llm: { env: llm.env() } } });
    expect(await prJobResult(s.host, s.job, s.deps)).toBe('reported');
    expect(llm.requests).toHaveLength(0);
    expect(s.host.pr.body ?? '').toContain('Not run:');
    expect(completionOf(s).conclusion).toBe('success');
  });
});
