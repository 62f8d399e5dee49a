import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/llm/port.js';
import { qaStateOf } from '../../src/host/publish-report.js';
import { renderBodySection } from '../../src/host/pr-body.js';
import { renderCheckRun, renderMarkdown } from '../../src/report/markdown.js';
import type { QaResult } from '../../src/qa/types.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { answers, portRepo, QUESTIONS, quietGuard } from './fixtures.js';
import { ScriptedModel } from './scripted-model.js';

const on = { qa: { enabled: true } };

describe('qa phase through the gate', () => {
  it('parses the three questions in slot order and counts handled answers whose citations hold', async () => {
    const questioner = new ScriptedModel('q-model', [QUESTIONS]);
    const defender = new ScriptedModel('d-model', [answers('src/parse.ts:3')]);
    let result: QaResult | undefined;
    const qa = { questioner, defender, title: 'Validate ports', onResult: (r: QaResult) => (result = r) };
    const report = await gate(portRepo(), [quietGuard], { config: on, qa });
    expect(result!.questions.map((q) => q.slot)).toEqual(['evidence', 'edge', 'scope']);
    expect(result!.questions[0]!.question).toContain('65535');
    expect(result!.models).toEqual({ questioner: 'q-model', defender: 'd-model' });
    expect(report.sections.qa).toMatchObject({ status: 'ran', handled: 2, gap: 0, uncertain: 1 });
    expect(findingsOf(report, 'qa')).toEqual([]);
    expect(defender.requests).toHaveLength(1);
    // The defender saw the questions and the numbered diff it must cite from.
    expect(defender.contents('user')[0]).toContain('+3 ');
    expect(defender.contents('user')[0]).toContain('Which changed line rejects ports');
    expect(renderCheckRun(report).summary).toContain('Q&A: 2 handled / 0 gap / 1 uncertain');
  });

  it('a questioner that does not ask exactly three questions crashes the phase visibly', async () => {
    const questioner = new ScriptedModel('q', [{ questions: QUESTIONS.questions.slice(0, 2) }]);
    const report = await gate(portRepo(), [quietGuard], { config: on, qa: { questioner, defender: new ScriptedModel('d', []) } });
    expect(report.sections.qa).toMatchObject({ status: 'crashed' });
    expect((report.sections.qa as { reason: string }).reason).toMatch(/^LlmError \(schema\): /);
  });

  it('flips a handled answer citing an unchanged line to a gap after one round trip, and routes the gap', async () => {
    const questioner = new ScriptedModel('q', [QUESTIONS]);
    // Line 1 exists but the PR did not change it; the round trip cites a file outside the diff.
    const defender = new ScriptedModel('d', [answers('src/parse.ts:1'), answers('README.md:1')]);
    const report = await gate(portRepo(), [quietGuard], { config: on, qa: { questioner, defender } });
    expect(defender.requests).toHaveLength(2);
    expect(defender.requests[1]!.purpose).toBe('qa.defender.round-trip');
    expect(defender.contents('user').at(-1)).toContain('src/parse.ts:1 is not a line this PR adds or changes');
    expect(report.sections.qa).toMatchObject({ status: 'ran', handled: 1, gap: 1, uncertain: 1 });
    const [gap, ...rest] = findingsOf(report, 'qa');
    expect(rest).toEqual([]);
    expect(gap).toMatchObject({ category: 'unmet-criterion', severity: 'risk' });
    expect(gap!.message).toContain('answered "handled" but README.md is not a file this PR changes');
    expect(report.decision.outcome).toBe('ADVISE');
    expect((report.sections.qa as { markdown: string }).markdown).toContain('Flipped from handled');
  });

  it('keeps a handled answer the round trip fixed, and carries the revised patch without applying it', async () => {
    const questioner = new ScriptedModel('q', [QUESTIONS]);
    const patch = [{ path: 'src/parse.ts', content: 'export const x = 1;\n' }];
    const defender = new ScriptedModel('d', [answers(null), { ...answers('src/parse.ts:2-4'), revisedPatch: patch }]);
    let result: QaResult | undefined;
    const repo = portRepo();
    const report = await gate(repo, [quietGuard], { config: on, qa: { questioner, defender, onResult: (r) => (result = r) } });
    expect(report.sections.qa).toMatchObject({ handled: 2, gap: 0 });
    expect(result!.roundTrip).toBe(true);
    expect(result!.revisedPatch).toEqual(patch);
    expect(repo.git('show', 'pr:src/parse.ts')).toContain('65535');
  });

  it('a crash is recorded with type and first line, blocks as critic-error, shows CRASHED in PR body and markdown', async () => {
    const questioner = new ScriptedModel('q', [new LlmError('timeout', 'no reply within 60000 ms\n    at fetch (client.ts:9)')]);
    const report = await gate(portRepo(), [quietGuard], { config: on, qa: { questioner, defender: new ScriptedModel('d', []) } });
    const reason = 'LlmError (timeout): no reply within 60000 ms';
    expect(report.sections.qa).toEqual({ status: 'crashed', reason, handled: 0, gap: 0, uncertain: 0 });
    expect(findingsOf(report, 'qa').map((f) => f.category)).toEqual(['critic-error']);
    expect(report.decision.outcome).toBe('STUCK');
    const body = renderBodySection({ decision: report.decision, headSha: report.head.sha, qa: qaStateOf(report) });
    expect(body).toContain('Q&A self-consistency phase CRASHED');
    expect(body).toContain('no reply within 60000 ms');
    expect(body).toContain('Treat this PR as ungated');
    expect(body).not.toContain('client.ts:9');
    const md = renderMarkdown(report);
    expect(md).toContain('Q&A self-consistency phase CRASHED');
    expect(md).toContain('Treat this PR as ungated');
    expect(md).toContain('Q&A: crashed (LlmError (timeout): no reply within 60000 ms)');
  });

  it('says why it did not run: disabled, or no model', async () => {
    const idle = { questioner: new ScriptedModel('q', []), defender: new ScriptedModel('d', []) };
    const disabled = await gate(portRepo(), [quietGuard], { qa: idle });
    expect(disabled.sections.qa).toMatchObject({ status: 'not-run', reason: 'disabled (qa.enabled is false)' });
    const noModel = await gate(portRepo(), [quietGuard], { config: on });
    expect(noModel.sections.qa).toMatchObject({ status: 'not-run' });
    expect((noModel.sections.qa as { reason: string }).reason).toContain('no model configured');
    expect(renderCheckRun(noModel).summary).toContain('Q&A: not run (no model configured');
    const untouched = await gate(portRepo(), [quietGuard]);
    expect(untouched.sections.qa).toBeUndefined();
  });
});
