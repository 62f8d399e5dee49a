import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/core/report.js';
import { decide } from '../../src/routing/decide.js';
import { appendDecision, normaliseDecisionRecord, readDecisions, toDecisionRecord, type DecisionRecord } from '../../src/routing/decisions-log.js';
import { makeFinding } from '../../src/core/finding.js';

const dir = mkdtempSync(join(tmpdir(), 'slopgate-decisions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEAD = 'a'.repeat(40);

function reportWith(decision: Report['decision']): Report {
  return {
    version: 1,
    tool: { name: 'slopgate', version: '0.1.0' },
    repo: 'acme/web',
    base: { ref: 'main', sha: 'b'.repeat(40) },
    head: { ref: 'pr', sha: HEAD },
    commits: [HEAD],
    files: [],
    guards: [],
    findings: [],
    sections: {},
    decision,
    createdAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1,
  };
}

const broken = makeFinding({ guard: 'G2', category: 'syntax-invalid', severity: 'fail', path: 'a.json', line: 1, message: 'm', remediation: 'r' });

describe('routing/decisions-log', () => {
  it('a REFINE evaluation becomes one compact B.7 line with flow pr-gate, step slopgate@<head> and the round', async () => {
    const file = join(dir, 'nested', 'decisions.jsonl');
    const record = toDecisionRecord(reportWith(decide([broken], { round: 2 })), 'run-17', { now: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) });
    expect(await appendDecision(file, record)).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(2);
    expect(text).not.toMatch(/": |, "/); // compact separators
    const line = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(['timestamp', 'run_id', 'flow_key', 'step_id', 'decision', 'reason', 'iteration', 'routing_source', 'candidates']);
    expect(line).toMatchObject({ routing_source: 'deterministic', candidates: ['REFINE'] });
    expect(line).toMatchObject({
      timestamp: '2026-01-02T03:04:05.000Z',
      run_id: 'run-17',
      flow_key: 'pr-gate',
      step_id: `slopgate@${HEAD}`,
      decision: 'REFINE',
      iteration: 2,
    });
    expect(String(line.reason)).toContain('refine wins by precedence');
  });

  it('PASS is not logged (the off-road log records only departures from the happy path)', async () => {
    const file = join(dir, 'pass.jsonl');
    expect(await appendDecision(file, toDecisionRecord(reportWith(decide([])), 'run-1'))).toBe(false);
    expect(await readDecisions(file)).toEqual([]);
  });

  it('round trip: appended records read back equal, in order, with HIGH confidence omitted and MEDIUM kept', async () => {
    const file = join(dir, 'roundtrip.jsonl');
    const a = toDecisionRecord(reportWith(decide([broken], { round: 3 })), 'r1', { confidence: 'HIGH' });
    const b = toDecisionRecord(reportWith(decide([broken])), 'r2', { confidence: 'MEDIUM', signatureMatched: 'syntax-invalid:regenerate' });
    await appendDecision(file, a);
    await appendDecision(file, b);
    const back = await readDecisions(file);
    expect(back).toEqual([a, b]);
    expect(back[0]!.decision).toBe('STUCK');
    expect('confidence' in back[0]!).toBe(false);
    expect(back[1]).toMatchObject({ confidence: 'MEDIUM', signature_matched: 'syntax-invalid:regenerate' });
  });

  it('bad lines (not JSON, wrong decision, local timestamp) are skipped with a warning naming the line', async () => {
    const file = join(dir, 'bad.jsonl');
    const good = toDecisionRecord(reportWith(decide([broken])), 'ok');
    await appendDecision(file, good);
    appendFileSync(file, '{not json\n');
    appendFileSync(file, JSON.stringify({ ...good, decision: 'CONTINUE' }) + '\n');
    appendFileSync(file, JSON.stringify({ ...good, timestamp: '2026-01-02T03:04:05+02:00' }) + '\n');
    appendFileSync(file, '\n');
    await appendDecision(file, { ...good, run_id: 'ok2' });
    const warnings: string[] = [];
    const back = await readDecisions(file, (m) => warnings.push(m));
    expect(back.map((r) => r.run_id)).toEqual(['ok', 'ok2']);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain(':2:');
    expect(warnings[1]).toMatch(/:3:.*decision/);
    expect(warnings[2]).toMatch(/:4:.*timestamp/);
  });

  it('a missing log reads as empty', async () => {
    expect(await readDecisions(join(dir, 'absent.jsonl'))).toEqual([]);
  });

  it('refuses to write a record outside the format (invalid confidence, empty run id)', async () => {
    const good = toDecisionRecord(reportWith(decide([broken])), 'x');
    await expect(appendDecision(join(dir, 'refuse.jsonl'), { ...good, confidence: 'SURE' } as unknown as DecisionRecord)).rejects.toThrow(/confidence/);
    expect(() => normaliseDecisionRecord({ ...good, run_id: '' })).toThrow(/run_id/);
  });

  it('a reason with newlines and quotes stays on one line', async () => {
    const file = join(dir, 'newline.jsonl');
    const rec = { ...toDecisionRecord(reportWith(decide([broken])), 'nl'), reason: 'line one\nline "two"' };
    await appendDecision(file, rec);
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(1);
    expect((await readDecisions(file))[0]!.reason).toBe('line one\nline "two"');
  });
});
