import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderReport } from '../../../src/report/index.js';
import { prRepo } from '../../helpers/git-repo.js';
import { checkTests, ran, tests } from './fixtures.js';

const pkg = (name: string, deps: Record<string, string> = {}) =>
  JSON.stringify({ name, version: '1.0.0', scripts: { test: 'node --test' }, dependencies: deps }, null, 2) + '\n';

const lib = (name: string, fn: string) => `'use strict';\nexports.${name} = ${fn};\n`;

const testOf = (name: string, req: string, cases: [string, string][]) =>
  `'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\nconst { ${name} } = require('${req}');\n\n` +
  cases.map(([title, body]) => `test('${title}', () => {\n  ${body}\n});\n`).join('\n');

/** The example: an npm workspace of three packages; `c` depends on `b`. */
const WORKSPACE = {
  'package.json':
    JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'], scripts: { test: 'npm test --workspaces' } }, null, 2) + '\n',
  'packages/a/package.json': pkg('@mono/a'),
  'packages/a/index.js': lib('double', '(n) => n * 2'),
  'packages/a/test/double.test.js': testOf('double', '../index.js', [['doubles', 'assert.strictEqual(double(2), 4);']]),
  'packages/b/package.json': pkg('@mono/b'),
  'packages/b/index.js': lib('sum', '(a, b) => a + b'),
  'packages/b/test/sum.test.js': testOf('sum', '../index.js', [
    ['adds two numbers', 'assert.strictEqual(sum(2, 3), 5);'],
    ['adds negatives', 'assert.strictEqual(sum(-2, -3), -5);'],
  ]),
  'packages/c/package.json': pkg('@mono/c', { '@mono/b': '*' }),
  'packages/c/index.js': `'use strict';\nexports.total = (xs) => xs.length;\n`,
  'packages/c/test/total.test.js': testOf('total', '../index.js', [['counts', 'assert.strictEqual(total([1, 2]), 2);']]),
  'README.md': '# mono\n',
};

const scratch: string[] = [];
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

describe('G8 in an npm workspace', () => {
  it('a broken assertion in packages/b is reported as the failing test in b; only b and its dependent c run', async () => {
    const repo = prRepo(WORKSPACE, { 'packages/b/index.js': lib('sum', '(a, b) => a - b') });
    const { code, report } = await checkTests(repo);
    const s = tests(report);
    expect(ran(report)).toEqual(['packages/b:changed', 'packages/c:dependent']);
    expect(s.workspace?.packages.find((p) => p.dir === 'packages/c')?.via).toEqual(['packages/b']);
    expect(s.suiteBroken).toBe(false);
    expect(s.regressions.sort()).toEqual([
      'packages/b: js:test/sum.test.js > adds negatives',
      'packages/b: js:test/sum.test.js > adds two numbers',
    ]);
    const found = report.findings.filter((f) => f.guard === 'G8');
    expect(found.map((f) => [f.category, f.path])).toEqual([
      ['test-regression', 'packages/b/test/sum.test.js'],
      ['test-regression', 'packages/b/test/sum.test.js'],
    ]);
    expect(found[0]!.message).toMatch(/^Package `@mono\/b` \(packages\/b\): Test `packages\/b: test\/sum\.test\.js > adds/);
    expect(found.every((f) => f.line !== undefined)).toBe(true);
    expect(code).toBe(1);
    // a did not run: the change does not touch it and it depends on nothing that changed.
    expect(s.workspace?.packages.map((p) => p.dir)).not.toContain('packages/a');
    expect(s.workspace?.packages.find((p) => p.dir === 'packages/b')?.command).toBe('cd packages/b && node --test');
  });

  it('the text and Markdown reports give one summary line per package that ran, and none for a package that did not', async () => {
    const repo = prRepo(WORKSPACE, { 'packages/b/index.js': lib('sum', '(a, b) => a - b') });
    const { report } = await checkTests(repo, 'tests:\n  timeoutSec: 120\n  reruns: 0\n');
    const text = renderReport('text', report).split('\n');
    // Markdown escapes what could be markup (`\&`) and breaks mentions (`@` + zero-width space): read it back plain.
    const markdown = renderReport('markdown', report)
      .split('\n')
      .map((l) => l.replace(/\u200b/g, '').replace(/\\(.)/g, '$1'));
    const lines = (all: string[], lead: string) => all.filter((l) => l.startsWith(lead));
    expect(lines(text, '  workspace: ')).toEqual(['  workspace: npm (package.json workspaces), 2 of 3 packages affected by this change']);
    expect(lines(markdown, '- workspace: ')).toHaveLength(1);
    for (const [lead, all] of [
      ['  ', text],
      ['- ', markdown],
    ] as const) {
      const pkgs = lines(all, `${lead}package `);
      expect(pkgs.map((l) => l.slice(lead.length).split(':')[0])).toEqual(['package packages/b', 'package packages/c']);
      expect(pkgs[0]).toMatch(/@mono\/b, changed · cd packages\/b && node --test · base .* · head .* · 2 regressions$/);
      expect(pkgs[1]).toMatch(/@mono\/c, depends on packages\/b · cd packages\/c && node --test · base /);
      expect(pkgs[1]).not.toMatch(/regression/);
    }
  });

  it('a change to docs only runs no suite and says so', async () => {
    const repo = prRepo(WORKSPACE, { 'README.md': '# mono\n\nThree packages.\n' });
    const { report } = await checkTests(repo);
    expect(ran(report)).toEqual([]);
    expect(tests(report).notes?.[0]).toMatch(/of 3 packages: this change affects none of them, so no suite ran/);
    expect(report.findings).toEqual([]);
  });

  it('a file outside every package (a root script) runs every package', async () => {
    const repo = prRepo(WORKSPACE, { 'scripts/release.js': 'console.log(1);\n' });
    const { report } = await checkTests(repo);
    expect(ran(report)).toEqual(['packages/a:shared', 'packages/b:shared', 'packages/c:shared']);
    expect(tests(report).workspace?.shared).toEqual(['scripts/release.js']);
  });

  it('tests.workspaces: off runs the root command once, as before', async () => {
    const repo = prRepo(WORKSPACE, { 'packages/b/index.js': lib('sum', '(a, b) => a - b') });
    const { report } = await checkTests(repo, 'tests:\n  timeoutSec: 120\n  reruns: 0\n  workspaces: off\n');
    expect(tests(report).workspace).toBeUndefined();
    expect(tests(report).runner).toBe('npm-test');
  });

  it('an override gives a package its own test command; another turns a package off', async () => {
    const repo = prRepo(WORKSPACE, { 'scripts/release.js': 'console.log(1);\n' });
    const config = [
      'tests:',
      '  timeoutSec: 120',
      'overrides:',
      "  - paths: ['packages/a/**']",
      '    tests:',
      "      command: 'node --test test/'",
      "  - paths: ['packages/c/**']",
      '    tests:',
      '      enabled: false',
      '',
    ].join('\n');
    const { report } = await checkTests(repo, config);
    const packages = tests(report).workspace!.packages;
    expect(packages.find((p) => p.dir === 'packages/a')?.command).toBe('cd packages/a && node --test test/');
    expect(packages.find((p) => p.dir === 'packages/c')?.skipped).toMatch(/disabled in config/);
    expect(packages.find((p) => p.dir === 'packages/b')?.runner).toBe('node-test');
  });

  it("tests.runner by path: a package's override names its runner; a later override's runner replaces an earlier one's command", async () => {
    const repo = prRepo(WORKSPACE, { 'packages/b/index.js': lib('sum', '(a, b) => a - b') });
    const config = [
      'tests:',
      '  timeoutSec: 120',
      '  reruns: 0',
      'overrides:',
      "  - paths: ['packages/**']",
      '    tests:',
      "      command: 'node --test test/'",
      "  - paths: ['packages/b/**']",
      '    tests:',
      '      runner: npm-test',
      '',
    ].join('\n');
    const { report } = await checkTests(repo, config);
    const packages = tests(report).workspace!.packages;
    const b = packages.find((p) => p.dir === 'packages/b')!;
    const c = packages.find((p) => p.dir === 'packages/c')!;
    // b: the runner its override names, with that runner's own command (not the earlier entry's command).
    expect([b.runner, b.command]).toEqual(['npm-test', 'cd packages/b && npm test']);
    // c: only the first entry matches, so its command.
    expect([c.runner, c.command]).toEqual(['custom', 'cd packages/c && node --test test/']);
    // npm-test reads the exit code only: b's break is a suite failure of b; c still passes.
    expect(b.suiteBroken).toBe(true);
    expect([c.suiteBroken, c.candidate?.status]).toEqual([false, 'ok']);
  });

  it("baselines are cached per package: a second PR on the same base reuses b's and c's; a's, never run, is its own entry", async () => {
    const db = mkdtempSync(join(tmpdir(), 'slopgate-ws-db-'));
    scratch.push(db);
    const repo = prRepo(WORKSPACE, { 'packages/b/index.js': lib('sum', '(a, b) => a - b') });
    // A second PR from the same base commit: it edits b differently, and a.
    repo.checkout('main').branch('pr2');
    repo
      .write({ 'packages/b/index.js': lib('sum', '(a, b) => b + a'), 'packages/a/index.js': lib('double', '(n) => n + n') })
      .commit('pr2');
    const config = 'tests:\n  timeoutSec: 120\n  reruns: 0\n';
    const first = await checkTests(repo, config, { db });
    expect(ran(first.report)).toEqual(['packages/b:changed', 'packages/c:dependent']);
    expect(tests(first.report).workspace!.packages.map((p) => p.baseline?.cached)).toEqual([false, false]);

    const second = await checkTests(repo, config, { head: 'pr2', db });
    expect(ran(second.report)).toEqual(['packages/a:changed', 'packages/b:changed', 'packages/c:dependent']);
    const byDir = new Map(tests(second.report).workspace!.packages.map((p) => [p.dir, p.baseline]));
    expect(byDir.get('packages/b')).toMatchObject({ cached: true, total: 2, failing: 0 });
    expect(byDir.get('packages/c')).toMatchObject({ cached: true, total: 1 });
    // a's baseline is keyed by a's own command: no other package's entry stands in for it.
    expect(byDir.get('packages/a')).toMatchObject({ cached: false, total: 1 });
    expect(tests(second.report).baseline?.cached).toBe(false);
    expect(second.report.findings).toEqual([]);
  });

  it('when no affected package has a test setup of its own, the root command runs once', async () => {
    const bare = (name: string) => JSON.stringify({ name, version: '1.0.0' }) + '\n';
    const rootTests = {
      'package.json':
        JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'], scripts: { test: 'node --test packages/' } }) + '\n',
      'packages/a/package.json': bare('@mono/a'),
      'packages/a/index.js': lib('double', '(n) => n * 2'),
      'packages/a/test/double.test.js': testOf('double', '../index.js', [['doubles', 'assert.strictEqual(double(2), 4);']]),
      'packages/b/package.json': bare('@mono/b'),
      'packages/b/index.js': lib('sum', '(a, b) => a + b'),
      'packages/b/test/sum.test.js': testOf('sum', '../index.js', [['adds two numbers', 'assert.strictEqual(sum(2, 3), 5);']]),
    };
    const repo = prRepo(rootTests, { 'packages/b/index.js': lib('sum', '(a, b) => a - b') });
    const { report } = await checkTests(repo);
    const s = tests(report);
    expect(s.workspace).toBeUndefined();
    expect(s.runner).toBe('node-test');
    expect(s.notes?.[0]).toMatch(/none of the 1 affected packages has a test setup of its own, so the root's command ran/);
    expect(s.regressions).toEqual(['js:packages/b/test/sum.test.js > adds two numbers']);
  });
});
