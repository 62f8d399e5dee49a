import { existsSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { needs } from '../helpers/toolchains.js';
import { MemoryBaselineCache } from '../../src/testgate/baseline-cache.js';
import { TestRepo } from '../helpers/git-repo.js';
import { gateTests, sandboxCacheDir, testsSection } from './fixtures.js';

/**
 * G8 driving a real vitest (slopgate's own devDependency) inside the sandbox, without network or installs (tests.install: off):
 * `tests.setup` links the host's vitest into the exported tree's `node_modules`. One fixture repo,
 * one base (with one test that already fails there) and one branch per case; the baseline runs once
 * and is cached for the other cases.
 */

const HOST_VITEST = realpathSync(fileURLToPath(new URL('../../node_modules/vitest', import.meta.url)));
// The sandbox shows nothing of the host but system dirs and toolchains: share vitest's node_modules
// read-only, as an operator would with SLOPGATE_SANDBOX_RO_PATHS.
process.env.SLOPGATE_SANDBOX_RO_PATHS = dirname(HOST_VITEST);
// A real node_modules dir (not a link to the host's), so vitest's cache lands in the throwaway tree.
const SETUP = `mkdir -p node_modules/.bin && ln -s '${HOST_VITEST}' node_modules/vitest && ln -s ../vitest/vitest.mjs node_modules/.bin/vitest`;

const RENDER = `const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ESCAPES[c]!);
}

export function renderComment(author: string, body: string): string {
  return '<p><b>' + escapeHtml(author) + '</b>: ' + escapeHtml(body) + '</p>';
}
`;

const RENDER_TEST = `import { describe, expect, it } from 'vitest';
import { renderComment } from '../src/render.js';

describe('renderComment', () => {
  it('renders plain text', () => {
    expect(renderComment('ada', 'hi')).toBe('<p><b>ada</b>: hi</p>');
  });

  it('escapes markup in the body', () => {
    expect(renderComment('eve', '<script>')).toBe('<p><b>eve</b>: &lt;script&gt;</p>');
  });

  it.each([
    ['<', '&lt;'],
    ['&', '&amp;'],
  ])('escapes %s in the author', (raw, escaped) => {
    expect(renderComment(raw, 'x')).toBe('<p><b>' + escaped + '</b>: x</p>');
  });
});
`;

// Already broken at the base: cuts one character too many.
const TRUNCATE = `export function truncate(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 2) + '…';
}
`;

const TRUNCATE_TEST = `import { expect, test } from 'vitest';
import { truncate } from '../src/truncate.js';

test('keeps short text', () => {
  expect(truncate('abc', 5)).toBe('abc');
});

test('cuts long text to max characters', () => {
  expect(truncate('abcdefgh', 5)).toBe('abcd…');
});
`;

const SLUG_TEST = `import { beforeAll, describe, expect, it } from 'vitest';

let words: string[] = [];
beforeAll(() => {
  words = ['a', 'b'];
});

describe('slug', () => {
  it('lowercases', () => {
    expect(words).toHaveLength(2);
    expect('A-B'.toLowerCase()).toBe('a-b');
  });
});
`;

// Fails on the first run in a tree and passes on the re-run (the marker file survives in between).
const FLAKY_TEST = `import { existsSync, writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';

it('passes the second time', () => {
  const seen = existsSync('.flaky-marker');
  writeFileSync('.flaky-marker', '');
  expect(seen).toBe(true);
});
`;

const BASE = {
  'package.json':
    JSON.stringify(
      { name: 'comments', version: '1.0.0', type: 'module', scripts: { test: 'vitest run' }, devDependencies: { vitest: '^4.1.0' } },
      null,
      2,
    ) + '\n',
  'src/render.ts': RENDER,
  'src/truncate.ts': TRUNCATE,
  'test/render.test.ts': RENDER_TEST,
  'test/truncate.test.ts': TRUNCATE_TEST,
  'test/slug.test.ts': SLUG_TEST,
};

const ESCAPES_ID = 'js:test/render.test.ts > renderComment > escapes markup in the body';
const AUTHOR_LT_ID = 'js:test/render.test.ts > renderComment > escapes < in the author';
const TRUNCATE_ID = 'js:test/truncate.test.ts > cuts long text to max characters';

const cacheDir = sandboxCacheDir();
const baselines = new MemoryBaselineCache();
let repo: TestRepo;

function branch(name: string, files: Parameters<TestRepo['write']>[0]): void {
  repo.checkout('main').branch(name).write(files).commit(name);
}

beforeAll(() => {
  repo = TestRepo.create();
  repo.write(BASE).commit('base');
  branch('regress', { 'src/render.ts': RENDER.replace('/[&<>"]/g', '/[&>"]/g') });
  branch('unloadable', {
    'test/render.test.ts': RENDER_TEST.replace("it('renders plain text', () => {", "it('renders plain text', () => {{"),
    'test/slug.test.ts': SLUG_TEST.replace("from 'vitest';", "from 'vitest';\nimport { slugify } from '../src/slug.js';").replace(
      "'A-B'.toLowerCase()",
      "slugify('A-B')",
    ),
  });
  branch('hook', { 'test/slug.test.ts': SLUG_TEST.replace("words = ['a', 'b'];", "throw new Error('fixture words.txt is missing');") });
  branch('flaky', { 'test/flaky.test.ts': FLAKY_TEST });
  branch('fix', { 'src/truncate.ts': TRUNCATE.replace('max - 2', 'max - 1') });
  branch('drop', {
    'test/render.test.ts': RENDER_TEST.replace(/\n {2}it\('renders plain text'[\s\S]*?\n {2}\}\);\n/, ''),
    'test/slug.test.ts': null,
  });
});
afterAll(() => cacheDir.remove());

const run = (head: string, reruns = 0) =>
  gateTests(repo, { head, cacheDir: cacheDir.dir, cache: baselines, tests: { setup: SETUP, reruns, install: 'off' } });

needs('bwrap')('G8 running a real vitest 4 in the sandbox', () => {
  it('the setup links vitest from the host (no network needed)', () => {
    expect(existsSync(`${HOST_VITEST}/vitest.mjs`)).toBe(true);
  });

  it('a renderer that stopped escaping `<` fails both tests that use it, on every run; the failure already at the base is not blamed', async () => {
    const report = await run('regress', 1);
    const s = testsSection(report);
    expect(s.runner).toBe('vitest');
    expect(s.baseline).toMatchObject({ total: 7, failing: 1 });
    expect(s.candidate).toMatchObject({ total: 7, failing: 3 });
    expect(s.regressions.sort()).toEqual([AUTHOR_LT_ID, ESCAPES_ID]);
    const byTest = new Map(report.findings.map((f) => [(f.evidence as { test: string }).test, f]));
    expect(report.findings).toHaveLength(2);
    expect(byTest.get(ESCAPES_ID)).toMatchObject({ category: 'test-regression', severity: 'fail', path: 'test/render.test.ts', line: 9 });
    expect(byTest.get(ESCAPES_ID)!.message).toContain('`test/render.test.ts > renderComment > escapes markup in the body`');
    expect(byTest.get(ESCAPES_ID)!.message).toMatch(/on all 2 runs: AssertionError: expected '<p><b>eve<\/b>: <script&gt;<\/p>' to be/);
    // `escapes < in the author` is not in the source under that name: the line (of the
    // `])('escapes %s in the author'` call) comes from vitest's --includeTaskLocation.
    expect(byTest.get(AUTHOR_LT_ID)).toMatchObject({ category: 'test-regression', path: 'test/render.test.ts', line: 16 });
  });

  it('test files that no longer load (a syntax error, a missing import) are build-broken per file, not removed tests', async () => {
    const report = await run('unloadable');
    const s = testsSection(report);
    expect(s.brokenUnits.sort()).toEqual(['js:test/render.test.ts', 'js:test/slug.test.ts']);
    expect(s.removed).toEqual([]);
    expect(report.findings.map((f) => [f.category, f.path]).sort()).toEqual([
      ['build-broken', 'test/render.test.ts'],
      ['build-broken', 'test/slug.test.ts'],
    ]);
    const [syntax, missing] = [...report.findings].sort((a, b) => (a.path ?? '').localeCompare(b.path ?? ''));
    expect(syntax!.message).toContain('test file `test/render.test.ts` no longer runs with this change');
    expect(syntax!.message).toMatch(/: \[PARSE_ERROR\] Unexpected token \(test\/render\.test\.ts:7:4\)$/);
    expect(JSON.stringify(syntax!.evidence)).not.toContain('\\u001b');
    expect(missing!.message).toMatch(/no longer runs .*: Cannot find module '\.\.\/src\/slug\.js' imported from test\/slug\.test\.ts$/);
  });

  it('a beforeAll hook that now throws is build-broken for its file (vitest reports its tests as skipped, not failed)', async () => {
    const report = await run('hook');
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ category: 'build-broken', path: 'test/slug.test.ts' });
    expect(report.findings[0]!.message).toMatch(
      /a hook \(beforeAll\/afterAll\) or code outside the tests failed: fixture words\.txt is missing/,
    );
    expect(testsSection(report).removed).toEqual([]);
  });

  it('a new test that fails once and passes when re-run with `<file> -t <name>` is flaky-test (nit)', async () => {
    const report = await run('flaky', 2);
    expect(testsSection(report)).toMatchObject({ regressions: [], flaky: ['js:test/flaky.test.ts > passes the second time'] });
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ category: 'flaky-test', severity: 'nit', path: 'test/flaky.test.ts', line: 4 });
    expect(report.findings[0]!.message).toContain('passed on re-run 1');
  });

  it('a PR that fixes the failing truncate test passes and lists the test as fixed', async () => {
    const report = await run('fix');
    const s = testsSection(report);
    expect(report.findings).toEqual([]);
    expect(s.fixed).toEqual([TRUNCATE_ID]);
    expect(s.candidate).toMatchObject({ total: 7, failing: 0 });
  });

  it('a deleted test and a deleted test file are tests-removed, one finding per file', async () => {
    const report = await run('drop');
    const s = testsSection(report);
    expect(s.removed.sort()).toEqual([
      'js:test/render.test.ts > renderComment > renders plain text',
      'js:test/slug.test.ts > slug > lowercases',
    ]);
    expect(report.findings).toHaveLength(2);
    expect(report.findings.map((f) => [f.category, f.severity, f.path]).sort()).toEqual([
      ['tests-removed', 'risk', 'test/render.test.ts'],
      ['tests-removed', 'risk', 'test/slug.test.ts'],
    ]);
    expect(report.findings.find((f) => f.path === 'test/render.test.ts')!.message).toContain(
      '`test/render.test.ts > renderComment > renders plain text`',
    );
  });

  it('the baseline ran once and was reused by every other case', async () => {
    const report = await run('fix');
    expect(testsSection(report).baseline).toMatchObject({ cached: true, total: 7, failing: 1 });
  });
});
