import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/core/config-schema.js';
import { evidenceAs, evidenceProblem } from '../../src/core/evidence.js';
import { makeFinding } from '../../src/core/finding.js';
import { buildDemoRepo } from '../../src/cli/demo-repo.js';
import { runGate } from '../../src/gate/run-gate.js';
import { G7_EVIDENCE, g7DroppedEvidence, type G7DroppedEvidence } from '../../src/guards/g7-dropped-definitions/evidence.js';
import { G8_EVIDENCE } from '../../src/guards/g8-tests/evidence.js';
import { GUARDS } from '../../src/guards/index.js';
import { g7RestoreDefinitions } from '../../src/refiner/recipes/g7-restore-definitions.js';
import { evidenceViolations } from '../helpers/evidence.js';

const dropped: G7DroppedEvidence = {
  dropped: [{ name: 'connect', kind: 'function', baseLine: 4, baseEndLine: 7 }],
  headHasSyntaxError: false,
};
const g7Finding = (evidence: Record<string, unknown>) =>
  makeFinding({
    guard: 'G7',
    category: 'toplevel-dropped',
    severity: 'fail',
    path: 'a.py',
    line: 1,
    message: 'm',
    remediation: 'r',
    evidence,
  });

describe('guard evidence schemas', () => {
  it('accept what the guard writes', () => {
    expect(evidenceProblem(G7_EVIDENCE, dropped)).toBeNull();
    expect(
      evidenceProblem(G7_EVIDENCE, { ...dropped, basePath: 'old.py', placeholderComments: [{ line: 3, text: '# rest unchanged' }] }),
    ).toBeNull();
  });

  it('reject a renamed key, a wrong type and a key no shape declares', () => {
    const { dropped: list, ...rest } = dropped;
    expect(evidenceProblem(G7_EVIDENCE, { ...rest, droppedDefinitions: list })).toMatch(/dropped/);
    expect(evidenceProblem(G7_EVIDENCE, { ...dropped, headHasSyntaxError: 'no' })).toMatch(/headHasSyntaxError/);
    expect(evidenceProblem(G7_EVIDENCE, { ...dropped, extra: 1 })).toMatch(/dropping keys it does not declare/);
    expect(evidenceProblem(G7_EVIDENCE, { ...dropped, dropped: [{ ...list[0], note: 'x' }] })).toMatch(/dropping keys/);
    expect(evidenceProblem([], { a: 1 })).toMatch(/declares no evidence shape/);
  });

  it('fail the check a test runs over a report when a guard writes evidence its schema rejects', () => {
    const bad = g7Finding({ ...dropped, dropped: 'connect' });
    expect(evidenceViolations([bad, g7Finding(dropped)], GUARDS)).toEqual([
      expect.stringMatching(/^G7 toplevel-dropped a\.py:1: .*dropped/),
    ]);
  });

  it('are what readers read through: a reader sees nothing in evidence of another shape', () => {
    expect(evidenceAs(g7DroppedEvidence, g7Finding(dropped))?.dropped[0]?.name).toBe('connect');
    const renamed = g7Finding({ droppedDefinitions: dropped.dropped, headHasSyntaxError: false });
    expect(evidenceAs(g7DroppedEvidence, renamed)).toBeUndefined();
    expect(g7RestoreDefinitions.handles(g7Finding(dropped))).toBe(true);
    expect(g7RestoreDefinitions.handles(renamed)).toBe(false);
  });

  it('are declared by every guard of the registry', () => {
    expect(GUARDS.filter((g) => g.evidence === undefined).map((g) => g.id)).toEqual([]);
  });
});

describe('every guard over the demo pull request', () => {
  const dir = buildDemoRepo();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes only evidence its schema accepts', async () => {
    const report = await runGate({
      repoDir: dir,
      base: 'main',
      head: 'slop-pr',
      guards: GUARDS,
      config: configSchema.parse({ tests: { enabled: false } }),
    });
    const withEvidence = new Set(report.findings.filter((f) => f.evidence).map((f) => f.guard));
    // The demo trips several guards: the check below is not vacuous.
    expect(withEvidence.size).toBeGreaterThanOrEqual(3);
    expect(evidenceViolations(report.findings, GUARDS)).toEqual([]);
  });
});
