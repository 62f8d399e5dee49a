import { afterAll, expect, it } from 'vitest';
import { needs } from '../helpers/toolchains.js';
import { prRepo } from '../helpers/git-repo.js';
import { renderText } from '../../src/report/text.js';
import { checkRunTitle, renderMarkdown } from '../../src/report/markdown.js';
import { g8Status, gateTests, sandboxCacheDir, testsSection } from './fixtures.js';

/**
 * G8 fails closed: whatever a PR does to stop its tests from producing results (hang, process storm,
 * deselecting them through configuration), the decision is never PASS and the message names the cause.
 */
const cache = sandboxCacheDir();
afterAll(() => cache.remove());

const CALC = `def add(a, b):
    return a + b


def mul(a, b):
    return a * b
`;

const TESTS = `from calc import add, mul


def test_add():
    assert add(2, 3) == 5


def test_mul():
    assert mul(2, 3) == 6
`;

const PY = {
  'pytest.ini': '[pytest]\ntestpaths = tests\n',
  'calc.py': CALC,
  'tests/test_calc.py': TESTS,
  'tests/conftest.py': 'import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n',
};

needs('pytest', 'bwrap')('G8 fails closed', () => {
  it('a PR that breaks a test and then hangs past the budget is blocked: tests not run, timeout named', async () => {
    const hang = TESTS + '\n\ndef test_wait():\n    import time\n    time.sleep(600)\n';
    const repo = prRepo(PY, { 'calc.py': CALC.replace('a + b', 'a - b'), 'tests/test_calc.py': hang });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { timeoutSec: 10, reruns: 0 } });
    expect(report.decision.outcome).not.toBe('PASS');
    expect(report.decision.conclusion).toBe('failure');
    const f = report.findings.find((x) => x.category === 'tests-not-run');
    expect(f?.severity).toBe('fail');
    expect(f?.message).toMatch(/^Tests not run: with this change, the test run did not finish within tests\.timeoutSec \(10 s\)/);
    expect(f?.message).toContain('ran 2 tests');
    expect(testsSection(report)).toMatchObject({ notRun: expect.stringContaining('did not finish') });
    expect(report.decision.reason).toContain('tests not run: with this change, the test run did not finish');
    expect(checkRunTitle(report)).toContain('tests not run: with this change, the test run did not finish');
    expect(renderText(report)).toContain('tests not run: with this change');
    expect(renderMarkdown(report)).toContain('tests not run: with this change');
  }, 180_000);

  it('a PR whose tests start processes without end is blocked at the process limit, and says so', async () => {
    const storm = TESTS + '\n\ndef test_storm():\n    import os\n    os.system("for i in $(seq 1 400); do sleep 30 & done; wait")\n';
    const repo = prRepo(PY, { 'tests/test_calc.py': storm });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { maxProcesses: 48, timeoutSec: 60, reruns: 0 } });
    expect(report.decision.outcome).not.toBe('PASS');
    const f = report.findings.find((x) => x.category === 'tests-not-run');
    expect(f?.message).toContain('stopped at the process limit (48 processes)');
    expect(f?.evidence).toMatchObject({ killedBy: 'process-limit' });
  }, 180_000);

  it('`addopts = -k zzz` in pytest.ini deselects every test: tests-removed with the count and pytest.ini named', async () => {
    const repo = prRepo(PY, { 'pytest.ini': '[pytest]\ntestpaths = tests\naddopts = -k zzz\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(report.decision.outcome).not.toBe('PASS');
    expect(report.decision.conclusion).toBe('action_required');
    const f = report.findings.filter((x) => x.category === 'tests-removed');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'fail', path: 'pytest.ini', evidence: { count: 2 } });
    expect(f[0]!.message).toMatch(
      /^2 tests that ran at the base \(\w{7}\) did not run with this change — this change edits what the test command selects: `pytest\.ini`/,
    );
    expect(g8Status(report).status).toBe('fail');
  }, 180_000);

  it('`-k` that keeps some tests: the deselected one is tests-removed, naming pytest.ini', async () => {
    const repo = prRepo(PY, { 'pytest.ini': '[pytest]\ntestpaths = tests\naddopts = -k add\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(report.decision.outcome).not.toBe('PASS');
    const f = report.findings.find((x) => x.category === 'tests-removed');
    expect(f?.message).toContain('1 test that ran at the base');
    expect(f?.message).toContain('test_mul');
    expect(f?.message).toContain('`pytest.ini` (edited)');
  }, 180_000);

  it('collect_ignore in conftest.py hides a test module: tests-removed names conftest.py', async () => {
    const more = { ...PY, 'tests/test_more.py': 'def test_more():\n    assert True\n' };
    const repo = prRepo(more, { 'tests/conftest.py': `${PY['tests/conftest.py']}collect_ignore = ["test_more.py"]\n` });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(report.decision.outcome).not.toBe('PASS');
    const f = report.findings.find((x) => x.category === 'tests-removed');
    expect(f).toMatchObject({ severity: 'fail', path: 'tests/conftest.py', evidence: { count: 1 } });
    expect(f?.message).toContain('`tests/conftest.py` (edited)');
    expect(f?.message).toContain('test_more');
  }, 180_000);

  it('a pyproject.toml edit outside its pytest section is not blamed', async () => {
    const base = { ...PY, 'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n' };
    const repo = prRepo(base, {
      'pyproject.toml': '[project]\nname = "calc"\nversion = "0.2.0"\n',
      'tests/test_calc.py': TESTS.replace(/\n\ndef test_mul[\s\S]*$/, '\n'),
    });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    const f = report.findings.filter((x) => x.category === 'tests-removed');
    // test_mul was deleted from its file: the plain (advisory) removal, no configuration blamed.
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'risk', path: 'tests/test_calc.py' });
    expect(testsSection(report)).not.toHaveProperty('configChanges');
  }, 180_000);
});

needs('bwrap')('G8 fails closed on Node repositories', () => {
  const NODE = {
    'package.json': JSON.stringify({ name: 'calc', version: '1.0.0', scripts: { test: 'node test/run.js' } }, null, 2) + '\n',
    'calc.js': 'module.exports = { add: (a, b) => a + b };\n',
    'test/run.js':
      "const assert = require('node:assert');\nconst { add } = require('../calc.js');\nassert.strictEqual(add(2, 3), 5);\nconsole.log('ok');\n",
  };

  it('a PR that rewrites the package.json test script of an exit-code-only suite is not a pass', async () => {
    const pkg = JSON.parse(NODE['package.json']) as { scripts: Record<string, string> };
    pkg.scripts.test = 'echo skipping';
    const repo = prRepo(NODE, {
      'package.json': JSON.stringify(pkg, null, 2) + '\n',
      'calc.js': 'module.exports = { add: (a, b) => a - b };\n',
    });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(testsSection(report).runner).toBe('npm-test');
    expect(report.decision.outcome).not.toBe('PASS');
    const f = report.findings.find((x) => x.category === 'tests-removed');
    expect(f).toMatchObject({ severity: 'fail', path: 'package.json' });
    expect(f?.message).toContain('`package.json` (scripts.test)');
  }, 180_000);

  const NODE_TEST = {
    'package.json': JSON.stringify({ name: 'calc', version: '1.0.0', scripts: { test: 'node --test' } }, null, 2) + '\n',
    'calc.js': 'module.exports = { add: (a, b) => a + b };\n',
    'test/calc.test.js':
      "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
  };

  it('a results file replaced by a FIFO does not hang the gate, and the missing results block', async () => {
    // The PR's test swaps the reporter's destination for a FIFO: a plain read would wait forever.
    const swap = `${NODE_TEST['test/calc.test.js']}test('swap', () => {
  const { execFileSync } = require('node:child_process');
  const fs = require('node:fs');
  const path = require('node:path');
  for (const dir of [process.env.SLOPGATE_OUT].filter(Boolean)) {
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.jsonl') || f.endsWith('.json') || f.endsWith('.xml')) {
      fs.rmSync(path.join(dir, f));
      execFileSync('mkfifo', [path.join(dir, f)]);
    }
  }
});
`;
    const repo = prRepo(NODE_TEST, { 'test/calc.test.js': swap });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    expect(testsSection(report).runner).toBe('node-test');
    expect(report.decision.outcome).not.toBe('PASS');
    expect(report.findings.map((f) => f.category)).toEqual(
      expect.arrayContaining([expect.stringMatching(/tests-not-run|build-broken|tests-removed/)]),
    );
    expect(report.findings.some((f) => f.severity === 'fail')).toBe(true);
  }, 180_000);

  it('a 50 MB failure message is cut before it is kept', async () => {
    const huge = `${NODE_TEST['test/calc.test.js']}test('huge', () => { assert.strictEqual('x'.repeat(50 * 1024 * 1024), 'y'); });\n`;
    const repo = prRepo(NODE_TEST, { 'test/calc.test.js': huge });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    const f = report.findings.find((x) => x.category === 'test-regression');
    expect(f?.message).toContain('huge');
    const kept = (f?.evidence as { output?: string } | undefined)?.output ?? '';
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(4096);
    expect(JSON.stringify(report).length).toBeLessThan(200_000);
  }, 180_000);
});
