import { afterAll, describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import type { PriorDismissal } from '../../src/core/apply-dismissals.js';
import { configSchema } from '../../src/core/config-schema.js';
import { toAnnotations } from '../../src/report/annotations.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { toSarif } from '../../src/report/sarif.js';
import { renderText } from '../../src/report/text.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';
import { findingsOf, gate } from '../helpers/gate.js';

afterAll(() => removeTestRepos());

/** Flags every line holding BAD (fail), MEH (risk) or NIT (nit), category `style`. */
const styleGuard: Guard = {
  id: 'T1',
  name: 'style words',
  appliesTo: (f) => f.head.text !== null,
  checkFile: (f) =>
    (f.head.text ?? '').split('\n').flatMap((text, i) => {
      const severity = text.includes('BAD') ? 'fail' : text.includes('MEH') ? 'risk' : text.includes('NIT') ? 'nit' : undefined;
      if (!severity) return [];
      const message = `${severity} word`;
      return [{ category: 'style' as const, severity, path: f.path, line: i + 1, message, remediation: `drop the ${severity} word` }];
    }),
};

const base = { 'keep.txt': 'fine\n' };

describe('dismissals in the pipeline', () => {
  it('ignore.findings dismisses by path glob and category; routing no longer counts the fail', async () => {
    const repo = prRepo(base, { 'legacy/old.txt': 'BAD\n', 'src/new.txt': 'BAD\n' });
    const config = { ignore: { findings: [{ path: 'legacy/**', category: 'style', reason: 'frozen legacy code' }] } };
    const report = await gate(repo, [styleGuard], { config, guardThreads: false });
    const [legacy, fresh] = ['legacy/old.txt', 'src/new.txt'].map((p) => findingsOf(report, 'T1').find((f) => f.path === p)!);
    expect(legacy!.dismissed).toMatchObject({ source: 'config', reason: 'frozen legacy code' });
    expect(fresh!.dismissed).toBeUndefined();
    expect(report.decision.blocking).toBe(1);

    const all = await gate(repo, [styleGuard], {
      config: { ignore: { findings: [{ path: '**/*.txt', category: 'style', reason: 'not ours' }] } },
      guardThreads: false,
    });
    expect(all.findings.every((f) => f.dismissed?.source === 'config')).toBe(true);
    expect(all.decision.outcome).toBe('PASS');
    expect(all.decision.blocking).toBe(0);
    expect(all.decision.reason).toMatch(/2 dismissed findings not counted/);
  });

  it('a category outside the vocabulary is a config error that names the known ones', () => {
    const r = configSchema.safeParse({ ignore: { findings: [{ path: 'a/**', category: 'stylee', reason: 'x' }] } });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toMatch(/unknown finding category 'stylee'; known categories: .*dead-link/);
    expect(configSchema.safeParse({ ignore: { findings: [{ path: 'a/**', category: 'style', reason: ' ' }] } }).success).toBe(false);
  });

  it('an inline slopgate-ignore on the line or the line above dismisses, in any comment syntax', async () => {
    const repo = prRepo(base, {
      'a.py': 'x = 1  # slopgate-ignore style: kept for the v1 API\n',
      'b.ts': '// slopgate-ignore style: generated\nconst y = "MEH";\n',
      'c.sql': 'SELECT NIT; -- slopgate-ignore style: vendor query\n',
      'd.md': '<!-- slopgate-ignore style: quoted upstream -->\nMEH text\n',
      'e.c': 'int z = MEH; /* slopgate-ignore style: hardware name */\n',
      'f.txt': 'MEH with no marker\n',
    });
    // a.py has no flagged word: the marker alone flags nothing.
    const report = await gate(repo, [styleGuard], { guardThreads: false, dismissals: { author: 'octocat' } });
    const byPath = new Map(findingsOf(report, 'T1').map((f) => [f.path, f]));
    expect(byPath.has('a.py')).toBe(false);
    expect(byPath.get('b.ts')!.dismissed).toMatchObject({ source: 'inline', reason: 'generated', by: 'octocat' });
    expect(byPath.get('c.sql')!.dismissed?.reason).toBe('vendor query');
    expect(byPath.get('d.md')!.dismissed?.reason).toBe('quoted upstream');
    expect(byPath.get('e.c')!.dismissed?.reason).toBe('hardware name');
    expect(byPath.get('f.txt')!.dismissed).toBeUndefined();
    expect(report.decision.outcome).toBe('ADVISE'); // f.txt's risk is still there
  });

  it('an inline comment cannot dismiss a fail by default (ignore.inlineMaxSeverity), nor anything when ignore.inline is off', async () => {
    const repo = prRepo(base, {
      'a.ts': 'const a = BAD; // slopgate-ignore style: trust me\n',
      'b.ts': 'MEH // slopgate-ignore style: fine\n',
    });
    const report = await gate(repo, [styleGuard], { guardThreads: false });
    const fail = findingsOf(report, 'T1').find((f) => f.path === 'a.ts')!;
    expect(fail.dismissed).toBeUndefined();
    expect(fail.message).toMatch(/inline comments may dismiss only findings up to risk/);
    expect(fail.message).toContain(`/slopgate dismiss ${fail.id}`);
    expect(report.decision.conclusion).toBe('failure');

    const allowed = await gate(repo, [styleGuard], { guardThreads: false, config: { ignore: { inlineMaxSeverity: 'fail' } } });
    expect(allowed.findings.every((f) => f.dismissed?.source === 'inline')).toBe(true);
    expect(allowed.decision.outcome).toBe('PASS');

    const off = await gate(repo, [styleGuard], { guardThreads: false, config: { ignore: { inline: false } } });
    expect(off.findings.some((f) => f.dismissed)).toBe(false);
    expect(findingsOf(off, 'T1').find((f) => f.path === 'b.ts')!.message).toMatch(/inline dismissals are turned off/);
  });

  it('a marker without a reason or with an unknown category dismisses nothing and is itself a nit', async () => {
    const repo = prRepo(base, {
      'a.ts': 'MEH // slopgate-ignore\n',
      'b.ts': 'MEH // slopgate-ignore styel: typo\n',
      'c.ts': 'MEH // slopgate-ignore style:\n',
    });
    const report = await gate(repo, [styleGuard], { guardThreads: false });
    expect(findingsOf(report, 'T1').every((f) => !f.dismissed)).toBe(true);
    const nits = findingsOf(report, 'slopgate-ignore');
    expect(nits.map((f) => [f.path, f.severity, f.category]).sort()).toEqual([
      ['a.ts', 'nit', 'comment-hygiene'],
      ['b.ts', 'nit', 'comment-hygiene'],
      ['c.ts', 'nit', 'comment-hygiene'],
    ]);
    expect(nits.find((f) => f.path === 'b.ts')!.message).toMatch(/'styel' is not a finding category/);
    expect(nits.find((f) => f.path === 'c.ts')!.message).toMatch(/gives no reason/);
  });

  it('a /slopgate dismiss recorded earlier is carried to a new head while the fingerprint is unchanged, not after', async () => {
    const repo = prRepo(base, { 'a.txt': 'BAD\n' });
    const first = await gate(repo, [styleGuard], { guardThreads: false });
    const id = findingsOf(first, 'T1')[0]!.id;
    expect(first.decision.conclusion).toBe('failure');
    const prior: PriorDismissal[] = [
      { fingerprint: id, by: 'maintainer', at: '2026-11-20T10:00:00.000Z', reason: 'intentional', source: 'command' },
      // inline and config records are re-derived on every run, never carried
      { fingerprint: 'ffffffffffff', by: 'x', at: '2026-11-20T10:00:00.000Z', reason: 'stale', source: 'inline' },
    ];

    repo.write({ 'other.txt': 'unrelated\n' }).commit('push 2'); // a.txt:1 unchanged → same fingerprint
    const second = await gate(repo, [styleGuard], { guardThreads: false, dismissals: { prior } });
    const carried = findingsOf(second, 'T1').find((f) => f.path === 'a.txt')!;
    expect(carried.id).toBe(id);
    expect(carried.dismissed).toEqual({ by: 'maintainer', at: '2026-11-20T10:00:00.000Z', reason: 'intentional', source: 'command' });
    expect(second.decision.conclusion).toBe('success');

    repo.write({ 'a.txt': 'header\nBAD\n' }).commit('push 3'); // the finding moves to line 2 → new fingerprint
    const third = await gate(repo, [styleGuard], { guardThreads: false, dismissals: { prior } });
    const moved = findingsOf(third, 'T1')[0]!;
    expect(moved.id).not.toBe(id);
    expect(moved.dismissed).toBeUndefined();
    expect(third.decision.conclusion).toBe('failure');
  });

  it('findings of the gate itself failing (stuck bucket) cannot be dismissed', async () => {
    const crashing: Guard = {
      id: 'T9',
      name: 'crash',
      appliesTo: () => true,
      checkFile: () => {
        throw new Error('boom');
      },
    };
    const repo = prRepo(base, { 'a.txt': 'x\n' });
    const first = await gate(repo, [crashing], { guardThreads: false });
    const err = first.findings.find((f) => f.category === 'guard-error')!;
    expect(err).toBeDefined();
    const again = await gate(repo, [crashing], {
      guardThreads: false,
      config: { ignore: { findings: [{ path: '**', category: 'guard-error', reason: 'please' }] } },
      dismissals: { prior: [{ fingerprint: err.id, by: 'm', at: '2026-11-20T10:00:00.000Z', reason: 'r', source: 'command' }] },
    });
    expect(again.findings.some((f) => f.dismissed)).toBe(false);
    expect(again.decision.conclusion).toBe('failure');
  });
});

describe('reporters show dismissed findings', () => {
  it('text, markdown, json and SARIF say dismissed with who and why; annotations skip them', async () => {
    const repo = prRepo(base, { 'a.txt': 'BAD\n', 'b.txt': 'MEH <!-- slopgate-ignore style: *not* <b>ours</b> -->\n' });
    const first = await gate(repo, [styleGuard], { guardThreads: false });
    const id = findingsOf(first, 'T1').find((f) => f.path === 'a.txt')!.id;
    const report = await gate(repo, [styleGuard], {
      guardThreads: false,
      dismissals: {
        prior: [{ fingerprint: id, by: 'alice', at: '2026-11-21T08:00:00.000Z', reason: 'rename is intended', source: 'command' }],
      },
    });

    const text = renderText(report);
    expect(text).toMatch(/FAIL\s+\(dismissed\)/);
    expect(text).toContain('dismissed by alice via /slopgate dismiss on 2026-11-21: rename is intended');
    expect(text).toContain('2 dismissed');

    const md = renderMarkdown(report);
    expect(md).toContain('~~fail~~ dismissed');
    expect(md).toMatch(/### Findings \(2: 1 fail, 1 risk, 0 nit; 2 dismissed\)/);
    expect(md).toMatch(/\*\*Dismissed:\*\* dismissed by alice via \/slopgate dismiss on 2026-11-21: rename is intended/);
    expect(md).not.toContain('<b>ours</b>'); // the inline reason is PR text: escaped

    const json = JSON.parse(JSON.stringify(report)) as typeof report;
    expect(json.findings.find((f) => f.id === id)!.dismissed).toMatchObject({ by: 'alice', source: 'command' });

    const sarif = toSarif(report).runs[0]!;
    const a = sarif.results!.find((r) => r.partialFingerprints!['slopgateFindingId/v1'] === id)!;
    expect(a.suppressions).toEqual([
      expect.objectContaining({ kind: 'external', status: 'accepted', justification: expect.stringContaining('rename is intended') }),
    ]);
    const b = sarif.results!.find((r) => r.locations![0]!.physicalLocation!.artifactLocation!.uri === 'b.txt')!;
    expect(b.suppressions![0]!.kind).toBe('inSource');

    expect(toAnnotations(report)).toEqual([]);
    // without the command dismissal a.txt is annotated; b.txt is dismissed inline either way
    expect(toAnnotations(first).map((x) => x.path)).toEqual(['a.txt']);
  });
});
