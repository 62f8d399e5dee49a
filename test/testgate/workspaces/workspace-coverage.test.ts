import { describe, expect, it } from 'vitest';
import { isInertDoc } from '../../../src/testgate/workspaces/affected-packages.js';
import { prRepo } from '../../helpers/git-repo.js';
import { checkTests, ran, tests } from './fixtures.js';

const lib = (name: string, fn: string) => `'use strict';\nexports.${name} = ${fn};\n`;
const testOf = (name: string, req: string, body: string) =>
  `'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\nconst { ${name} } = require('${req}');\n\ntest('${name} works', () => {\n  ${body}\n});\n`;
const manifest = (name: string, scripts?: Record<string, string>) =>
  JSON.stringify({ name, version: '1.0.0', ...(scripts ? { scripts } : {}) }) + '\n';

/** `a` has a suite of its own; `b` is tested only by the root's command. */
const MIXED = {
  'package.json':
    JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'], scripts: { test: 'node --test packages/b/' } }) + '\n',
  'packages/a/package.json': manifest('@mono/a', { test: 'node --test' }),
  'packages/a/index.js': lib('double', '(n) => n * 2'),
  'packages/a/test/double.test.js': testOf('double', '../index.js', 'assert.strictEqual(double(2), 4);'),
  'packages/b/package.json': manifest('@mono/b'),
  'packages/b/index.js': lib('sum', '(a, b) => a + b'),
  'packages/b/test/sum.test.js': testOf('sum', '../index.js', 'assert.strictEqual(sum(2, 3), 5);'),
  'data/table.csv': 'a,b\n1,2\n',
};

describe('workspaces: no affected package goes unrun', () => {
  it("a comment in a package with a suite plus a break in a package only the root tests: the root's command runs and blocks", async () => {
    const repo = prRepo(MIXED, {
      'packages/a/index.js': `'use strict';\n// doubles\nexports.double = (n) => n * 2;\n`,
      'packages/b/index.js': lib('sum', '(a, b) => a - b'),
    });
    const { code, report } = await checkTests(repo, 'tests:\n  timeoutSec: 120\n  reruns: 0\n');
    expect(ran(report)).toContain('.:root');
    expect(tests(report).workspace?.rootRan).toBe(true);
    expect(tests(report).regressions).toEqual(['js:packages/b/test/sum.test.js > sum works']);
    expect(code).toBe(1);
  });

  it("a package's scripts.test rewritten to `exit 0` is tests removed", async () => {
    const repo = prRepo(MIXED, { 'packages/a/package.json': manifest('@mono/a', { test: 'exit 0' }) });
    const { code, report } = await checkTests(repo, 'tests:\n  timeoutSec: 120\n  reruns: 0\n');
    const f = report.findings.find((x) => x.category === 'tests-removed' && x.path === 'packages/a/package.json');
    expect(f?.severity).toBe('fail');
    expect(code).toBe(1);
  });

  it('a data file outside every package is not documentation: every package and the root run', async () => {
    const repo = prRepo(MIXED, { 'data/table.csv': 'a,b\n1,3\n' });
    const { report } = await checkTests(repo, 'tests:\n  timeoutSec: 120\n  reruns: 0\n');
    expect(tests(report).workspace?.shared).toEqual(['data/table.csv']);
    expect(ran(report)).toEqual(['packages/a:shared', 'packages/b:shared', '.:root']);
    expect(report.coverage?.filter((c) => c.check === 'G8' && c.scope.startsWith('package ')).map((c) => `${c.scope}:${c.status}`)).toEqual(
      ['package packages/a:ran', 'package packages/b:ran', 'package .:ran'],
    );
  });

  it('only known documentation is inert: never requirement or constraint files', () => {
    for (const p of ['README.md', 'docs/guide.rst', 'CHANGELOG', 'LICENSE-MIT', 'notes/x.md', 'README.txt'])
      expect(isInertDoc(p), p).toBe(true);
    for (const p of [
      'requirements.txt',
      'requirements-dev.txt',
      'constraints.txt',
      'docs/requirements.txt',
      'data/words.txt',
      'fixtures.json',
    ])
      expect(isInertDoc(p), p).toBe(false);
  });
});
