import { afterAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';

afterAll(() => removeTestRepos());

interface Out {
  conclusion: string;
  guards: { id: string; status: string; reason?: string }[];
  findings: { category: string; severity: string; path?: string; message: string }[];
}

async function check(dir: string, noTests: boolean, only?: string[]): Promise<Out> {
  let out = '';
  await runCheck(
    { repo: dir, base: 'main', head: 'pr', format: 'json', strict: false, noTests, ...(only ? { only } : {}) },
    (s) => (out += s),
  );
  return JSON.parse(out) as Out;
}

const PKG = JSON.stringify({ name: 'cli-lib', version: '1.0.0', type: 'module', scripts: { test: 'node --test' } }, null, 2) + '\n';
const HELPER = `export function stripAnsi(text) {
  return String(text).replace(/\\u001b\\[[0-9;]*m/g, '');
}
`;
const HELPER_TEST = `import test from 'node:test';
import assert from 'node:assert';
import { stripAnsi } from '../src/helper.js';

test('strips colour codes', () => {
  assert.strictEqual(stripAnsi('\\u001b[31mred\\u001b[0m'), 'red');
});

test('keeps plain text', () => {
  assert.strictEqual(stripAnsi('plain'), 'plain');
});
`;
const FORMAT_BASE = `import { stripAnsi } from './helper.js';

export function width(text) {
  return stripAnsi(text).length;
}
`;
const FORMAT_HEAD = `import { stripVTControlCharacters } from 'node:util';

export function width(text) {
  return stripVTControlCharacters(text).length;
}
`;
const FORMAT_TEST = `import test from 'node:test';
import assert from 'node:assert';
import { width } from '../src/format.js';

test('width ignores colour codes', () => {
  assert.strictEqual(width('\\u001b[31mred\\u001b[0m'), 3);
});
`;

const removed = (r: Out) => r.findings.filter((f) => f.category === 'tests-removed');

const JS_BASE = {
  'package.json': PKG,
  'src/helper.js': HELPER,
  'src/format.js': FORMAT_BASE,
  'test/helper.test.js': HELPER_TEST,
  'test/format.test.js': FORMAT_TEST,
};

/**
 * Issue 31, item 3: tests deleted together with the code they tested are a risk, not a block, when
 * nothing left at the head defines that code; a renamed test whose body lives on is not removed.
 * Through the real CLI with the test gate on (node --test and go test, no dependencies).
 */
describe('G8: tests removed with the code they tested', () => {
  it('a helper replaced by node:util, deleted with its tests: risk "removed with the code they tested", no block', async () => {
    const repo = prRepo(JS_BASE, { 'src/helper.js': null, 'test/helper.test.js': null, 'src/format.js': FORMAT_HEAD });
    // The guards that could block this shape (G16/G17 run the project's tools and are not under test here).
    const r = await check(repo.dir, false, ['G1', 'G2', 'G4', 'G7', 'G8', 'G15']);
    expect(r.guards.find((g) => g.id === 'G8')?.status).toBe('risk');
    expect(r.findings.filter((f) => f.severity === 'fail')).toEqual([]);
    const [f, ...rest] = removed(r);
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ severity: 'risk', path: 'test/helper.test.js' });
    expect(f!.message).toContain('removed with the code they tested');
    expect(f!.message).toContain('`src/helper.js` is deleted');
    expect(f!.message).toContain('nothing at the head defines `stripAnsi`');
  });

  it('the same code moved to another module (still defined at the head): its deleted tests still block', async () => {
    const repo = prRepo(JS_BASE, {
      'src/helper.js': null,
      'src/ansi.js': HELPER.replace("'')", "'x')"),
      'test/helper.test.js': null,
      'src/format.js': FORMAT_BASE.replace('./helper.js', './ansi.js'),
    });
    const r = await check(repo.dir, false, ['G8']);
    const [f] = removed(r);
    expect(f).toMatchObject({ severity: 'fail', path: 'test/helper.test.js' });
    expect(f!.message).toContain('the change breaks what they checked');
  });

  it('Go: a test renamed with the same body (TestTrim → TestTrimSmallScan) is not a removed test', async () => {
    const lib = 'package trim\n\nimport "strings"\n\nfunc Trim(s string) string { return strings.TrimSpace(s) }\n';
    const test = (name: string) =>
      `package trim\n\nimport "testing"\n\nfunc ${name}(t *testing.T) {\n\tif got := Trim("  a "); got != "a" {\n\t\tt.Fatalf("${name}: got %q", got)\n\t}\n}\n`;
    const repo = prRepo(
      { 'go.mod': 'module example.com/trim\n\ngo 1.22\n', 'trim.go': lib, 'trim_test.go': test('TestTrim') },
      { 'trim_test.go': test('TestTrimSmallScan') },
    );
    const r = await check(repo.dir, false, ['G8']);
    // Without the rename check, TestTrim was an advisory tests-removed finding (G8 `risk`).
    expect(r.guards.find((g) => g.id === 'G8')?.status).toBe('pass');
    expect(removed(r)).toEqual([]);
  });
});
