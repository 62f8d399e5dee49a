import { afterAll, describe, expect, it } from 'vitest';
import { prRepo } from '../helpers/git-repo.js';
import { runCheck } from '../../src/cli.js';
import { workflowBuildBeforeTests } from '../../src/testgate/ci-build-step.js';
import { g8Status, gateTests, sandboxCacheDir, testsSection } from './fixtures.js';

const cache = sandboxCacheDir();
afterAll(() => cache.remove());

const RENDER = `'use strict';
const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

function escapeHtml(text) {
  return String(text).replace(/[&<>"]/g, (c) => ESCAPES[c]);
}

function renderComment(author, body) {
  return '<p><b>' + escapeHtml(author) + '</b>: ' + escapeHtml(body) + '</p>';
}

module.exports = { renderComment };
`;

const RENDER_TEST = `'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { renderComment } = require('../src/render.js');

test.describe('renderComment', () => {
  test('renders plain text', () => {
    assert.strictEqual(renderComment('ada', 'hi'), '<p><b>ada</b>: hi</p>');
  });

  test('escapes markup in the body', () => {
    assert.strictEqual(renderComment('eve', '<script>x</script>'), '<p><b>eve</b>: &lt;script&gt;x&lt;/script&gt;</p>');
  });
});
`;

const JS = {
  'package.json': JSON.stringify({ name: 'comments', version: '1.0.0', scripts: { test: 'node --test' } }, null, 2) + '\n',
  'src/render.js': RENDER,
  'test/render.test.js': RENDER_TEST,
};

describe('G8 on node --test repositories', () => {
  it('a renderer that stopped escaping fails the escaping test, with suite > name ids', async () => {
    const repo = prRepo(JS, { 'src/render.js': RENDER.replace("' + escapeHtml(body) + '", "' + body + '") });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 1 } });
    const s = testsSection(report);
    expect(s.runner).toBe('node-test');
    expect(s.regressions).toEqual(['js:test/render.test.js > renderComment > escapes markup in the body']);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ category: 'test-regression', path: 'test/render.test.js', line: 11 });
    expect(s.baseline).toMatchObject({ total: 2, failing: 0 });
  });

  it('a test file that no longer loads is build-broken for that file', async () => {
    const repo = prRepo(JS, {
      'test/render.test.js': RENDER_TEST.replace("test('renders plain text', () => {", "test('renders plain text', () => {{"),
    });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(report.findings.map((f) => [f.category, f.path])).toEqual([['build-broken', 'test/render.test.js']]);
    expect(report.findings[0]!.message).toMatch(/no longer loads.*SyntaxError|SyntaxError/);
  });

  it('judges the test-merge commit when the host provides one', async () => {
    const repo = prRepo(JS, { 'README.md': 'docs only\n' });
    // main moved on after the PR branched: the merge result carries main's broken renderer
    repo.git('checkout', '-q', 'main');
    repo.write({ 'src/render.js': RENDER.replace("' + escapeHtml(body) + '", "' + body + '") }).commit('main breaks escaping');
    repo.git('checkout', '-q', '-b', 'merge', 'pr');
    repo.git('merge', '-q', '--no-edit', 'main');
    const viaHead = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(testsSection(viaHead).regressions).toEqual([]);
    const viaMerge = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 }, mergeRef: 'merge' });
    // base (merge-base) passes; the merge commit fails
    expect(testsSection(viaMerge).regressions).toEqual(['js:test/render.test.js > renderComment > escapes markup in the body']);
  });

  it('an npm test script without per-test output is judged by its exit code, and a repo without any test setup is skipped', async () => {
    const pkg = (script: string) => JSON.stringify({ name: 'x', version: '1.0.0', scripts: { test: script } });
    const repo = prRepo({ 'package.json': pkg('sh check.sh'), 'check.sh': 'exit 0\n' }, { 'check.sh': 'echo broken; exit 1\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 1 } });
    expect(report.findings.map((f) => f.category)).toEqual(['build-broken']);
    // The project's own command, and what it printed: not slopgate's `npm test --silent`, not a bare exit code.
    expect(report.findings[0]!.message).toMatch(
      /^The test suite \(`npm test`\) produced results at the base \(\w{7}\) but none with this change: the command fails \(exit 1\) and reports only its exit code — its output ends with `broken`\.$/,
    );
    expect(report.findings[0]!.remediation).toMatch(/^Run `npm test` on this branch/);
    const none = prRepo({ 'README.md': 'hi\n' }, { 'README.md': 'hello\n' });
    const skipped = await gateTests(none, { cacheDir: cache.dir });
    expect(g8Status(skipped).status).toBe('skipped');
    expect(g8Status(skipped).reason).toMatch(/no supported test setup/);
  });

  it('`slopgate check` runs G8 by default and `--no-tests` skips it', async () => {
    const repo = prRepo(JS, { 'src/render.js': RENDER.replace("' + escapeHtml(body) + '", "' + body + '") });
    const run = async (noTests: boolean) => {
      let out = '';
      await runCheck({ repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, noTests, only: ['G8'] }, (s) => (out += s));
      return JSON.parse(out) as { guards: { id: string; status: string; reason?: string }[]; findings: { category: string }[] };
    };
    const skipped = await run(true);
    expect(skipped.guards.find((g) => g.id === 'G8')).toMatchObject({ status: 'skipped', reason: 'disabled for this run (--no-tests)' });
    const ran = await run(false);
    expect(ran.findings.map((f) => f.category)).toEqual(['test-regression']);
  });
});

describe('a build CI runs before its tests', () => {
  const workflow =
    'name: ci\non: [pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm ci\n      - run: npm run build\n      - run: npm test\n';
  it('is read from the job that runs the tests, before them, and only as a plain command', () => {
    expect(workflowBuildBeforeTests(workflow)).toBe('npm run build');
    expect(workflowBuildBeforeTests(workflow.replace('npm run build', 'npm run build && rm -rf /'))).toBeNull();
    expect(workflowBuildBeforeTests(workflow.replace('      - run: npm test\n', ''))).toBeNull();
    expect(workflowBuildBeforeTests(workflow.replace('npm run build', 'pnpm -r build').replace('npm test', 'pnpm -r test'))).toBe(
      'pnpm -r build',
    );
  });

  it('runs in each side’s tree first: tests that import the built output run, and the change’s regression is found', async () => {
    // The tests import dist/, which only the build makes (as a workspace's packages import each other's dist/).
    const pkg = { name: 'built', version: '1.0.0', scripts: { build: 'node build.js', test: 'node --test' } };
    const repo = prRepo(
      {
        'package.json': JSON.stringify(pkg, null, 2) + '\n',
        'build.js':
          "'use strict';\nconst fs = require('node:fs');\nfs.mkdirSync('dist', { recursive: true });\nfs.copyFileSync('src/calc.js', 'dist/calc.js');\n",
        'src/calc.js': "'use strict';\nmodule.exports = { triple: (x) => x * 3 };\n",
        'test/calc.test.js':
          "'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\nconst { triple } = require('../dist/calc.js');\ntest('triple', () => assert.strictEqual(triple(2), 6));\n",
        '.github/workflows/ci.yml': workflow,
      },
      { 'src/calc.js': "'use strict';\nmodule.exports = { triple: (x) => x + 3 };\n" },
    );
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    const tests = testsSection(report);
    expect(tests.baseline).toMatchObject({ failing: 0, total: 1 });
    expect(tests.regressions).toEqual(['js:test/calc.test.js > triple']);
    expect(report.sections.tests?.notes?.join('\n')).toContain('CI runs `npm run build` before its tests');
  });
});
