import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { Ajv as AjvType } from 'ajv';
import Ajv04Module from 'ajv-draft-04';
import { describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import { renderReport } from '../../src/report/index.js';
import { FINGERPRINT_KEY, toSarif } from '../../src/report/sarif.js';
import { gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';
import { buildReport, f } from './build-report.js';

/** The official SARIF 2.1.0 (rtm.5) JSON Schema, as shipped by @microsoft/jest-sarif. */
function sarifValidator() {
  const require = createRequire(import.meta.url);
  const schemaPath = require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as object;
  const Ajv04 = ((Ajv04Module as unknown as { default?: typeof AjvType }).default ?? Ajv04Module) as unknown as typeof AjvType;
  const ajv = new Ajv04({ allErrors: true, strict: false, unicodeRegExp: false });
  ajv.addFormat('uri', (s: string) => URL.canParse(s));
  ajv.addFormat('uri-reference', (s: string) => !/\s/.test(s));
  ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
  return ajv.compile(schema);
}

const validate = sarifValidator();

function expectValid(log: unknown) {
  const ok = validate(log);
  expect(validate.errors ?? [], JSON.stringify(validate.errors?.slice(0, 3))).toEqual([]);
  expect(ok).toBe(true);
}

describe('report/sarif', () => {
  it('output of the real pipeline validates against the SARIF 2.1.0 schema and has what code scanning needs', async () => {
    const guard: Guard = {
      id: 'GS',
      name: 'sample guard',
      appliesTo: () => true,
      checkFile: (file) => [
        {
          category: 'dead-link',
          severity: 'risk',
          path: file.path,
          line: 2,
          endLine: 3,
          message: `dead link in ${file.path}`,
          remediation: 'Point it at an existing file.',
        },
      ],
      checkAll: () => [{ category: 'tests-removed', severity: 'fail', message: 'tests were deleted', remediation: 'Say why.' }],
    };
    const repo = prRepo({ 'docs/guide one.md': 'a\n' }, { 'docs/guide one.md': 'a\n[x](./gone.md)\nb\n' });
    const report = await gate(repo, [guard]);
    const text = renderReport('sarif', report);
    const log = JSON.parse(text);
    expectValid(log);
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
    const run = log.runs[0];
    expect(run.tool.driver).toMatchObject({ name: 'slopgate', version: report.tool.version });
    expect(run.tool.driver.informationUri).toMatch(/^https:\/\//);
    expect(run.results).toHaveLength(2);
    for (const r of run.results) {
      expect(r.locations.length).toBeGreaterThanOrEqual(1);
      const loc = r.locations[0].physicalLocation;
      expect(loc.artifactLocation.uri).toBe('docs/guide%20one.md');
      expect(loc.region.startLine).toBeGreaterThanOrEqual(1);
      expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
      expect(r.partialFingerprints[FINGERPRINT_KEY]).toMatch(/^[0-9a-f]{12}$/);
      expect(r.suppressions).toBeUndefined();
    }
    const link = run.results.find((r: { ruleId: string }) => r.ruleId === 'GS/dead-link');
    expect(link).toMatchObject({ level: 'warning', locations: [{ physicalLocation: { region: { startLine: 2, endLine: 3 } } }] });
    expect(link.message.text).toContain('What to do: Point it at an existing file.');
    const removed = run.results.find((r: { ruleId: string }) => r.ruleId === 'GS/tests-removed');
    expect(removed.level).toBe('error');
    expect(removed.message.text).toMatch(/^Applies to the whole change/);
    expect(removed.locations[0].physicalLocation.region.startLine).toBe(1);
  });

  it('maps fail → error, risk → warning, nit → note, with one rule per guard and category', () => {
    const report = buildReport([
      f(),
      f({ path: 'b.py' }),
      f({ severity: 'risk', category: 'dead-link', guard: 'G14', path: 'README.md', line: 4 }),
      f({ severity: 'nit', category: 'style', guard: 'qa', path: 'README.md', line: 9 }),
    ]);
    const log = toSarif(report);
    expectValid(log);
    const run = log.runs[0]!;
    expect(run.tool.driver.rules!.map((r) => r.id)).toEqual(['G7/toplevel-dropped', 'G14/dead-link', 'qa/style']);
    expect(run.results!.map((r) => r.level)).toEqual(['error', 'error', 'warning', 'note']);
    const rule = run.tool.driver.rules![0]!;
    expect(rule.shortDescription!.text).toBe('dropped definitions: toplevel-dropped');
    expect(rule.fullDescription!.text).toMatch(/top-level definition/);
    expect(rule.help!.text.length).toBeGreaterThan(10);
    expect(rule.defaultConfiguration!.level).toBe('error');
  });

  it('uses repository-relative URIs: no leading slash, no "./", no escape from the root', () => {
    const report = buildReport([
      f({ path: './src/app.py' }),
      f({ path: '/etc/passwd', line: 2 }),
      f({ path: '../../outside.txt', line: 3 }),
    ]);
    const log = toSarif(report);
    expectValid(log);
    const uris = log.runs[0]!.results!.map((r) => r.locations![0]!.physicalLocation!.artifactLocation!.uri);
    expect(uris).toEqual(['src/app.py', 'etc/passwd', 'src/app.py']);
    for (const u of uris) expect(u).not.toMatch(/^(\/|file:|\.\.?\/)/);
    // the path that escaped the root is treated as whole-change and says so
    expect(log.runs[0]!.results![2]!.message.text).toMatch(/^Applies to the whole change/);
  });

  it('pins whole-change findings to the first changed file that still exists; with none, they become notifications', () => {
    const pathless = f({ path: undefined, line: undefined, category: 'tests-removed' });
    const onlyDeleted = buildReport([pathless], { files: [{ path: 'old.py', status: 'deleted', additions: 0, deletions: 5 }] });
    const log = toSarif(onlyDeleted);
    expectValid(log);
    expect(log.runs[0]!.results).toEqual([]);
    const notes = log.runs[0]!.invocations![0]!.toolExecutionNotifications!;
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ level: 'error', descriptor: { id: 'G7/tests-removed' } });
    const withFiles = toSarif(
      buildReport([pathless], {
        files: [
          { path: 'old.py', status: 'deleted', additions: 0, deletions: 5 },
          { path: 'new.py', status: 'added', additions: 5, deletions: 0 },
        ],
      }),
    );
    expect(withFiles.runs[0]!.results![0]!.locations![0]!.physicalLocation!.artifactLocation!.uri).toBe('new.py');
  });

  it('carries a deterministic suggestion as a SARIF fix and still validates', () => {
    const log = toSarif(
      buildReport([f({ suggestion: { path: 'src/app.py', startLine: 10, endLine: 12, replacement: 'def load_config():\n    pass\n' } })]),
    );
    expectValid(log);
    const fix = log.runs[0]!.results![0]!.fixes![0]!;
    expect(fix.artifactChanges[0]!.replacements[0]).toMatchObject({
      deletedRegion: { startLine: 10, endLine: 12 },
      insertedContent: { text: 'def load_config():\n    pass\n' },
    });
  });

  it('an empty report is still a valid log with one run and no results', () => {
    const log = toSarif(buildReport([]));
    expectValid(log);
    expect(log.runs[0]!.results).toEqual([]);
    expect(log.runs[0]!.invocations![0]!.executionSuccessful).toBe(true);
  });

  it('the schema check has teeth: a result without a message, or a bad level, is rejected', () => {
    const log = toSarif(buildReport([f()])) as unknown as { runs: { results: Record<string, unknown>[] }[] };
    const noMessage = structuredClone(log);
    delete noMessage.runs[0]!.results[0]!.message;
    expect(validate(noMessage)).toBe(false);
    const badLevel = structuredClone(log);
    badLevel.runs[0]!.results[0]!.level = 'fatal';
    expect(validate(badLevel)).toBe(false);
  });

  it('rule ids stay URI-safe even for odd guard ids', () => {
    const log = toSarif(buildReport([f({ guard: 'my guard/x' })]));
    expect(log.runs[0]!.results![0]!.ruleId).toBe('my_guard_x/toplevel-dropped');
  });
});
