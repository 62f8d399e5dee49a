import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryBaselineCache } from '../../src/testgate/baseline-cache.js';
import { compareSuites } from '../../src/testgate/compare.js';
import { toSuiteResult } from '../../src/testgate/run-suite.js';
import { cargoPackageName } from '../../src/testgate/runners/cargo-build.js';
import { parseLibtestOutput } from '../../src/testgate/runners/cargo.js';
import { parseGoTestJson } from '../../src/testgate/runners/go.js';
import { nodeTestScriptArgs, exitCodeRunner } from '../../src/testgate/runners/node.js';
import { parseJestJson } from '../../src/testgate/runners/node-results.js';
import { parsePytestJunit } from '../../src/testgate/runners/pytest.js';
import { sandboxEnv } from '../../src/sandbox/sandbox-env.js';
import type { SuiteResult } from '../../src/core/suite-result.js';

const limits = { network: false, timeoutSec: 60, memoryMb: 512, maxProcesses: 64 };

describe('runner output parsers', () => {
  it('vitest/jest JSON: suite > test ids, locations, and a file that failed to load as a broken unit', () => {
    const json = JSON.stringify({
      testResults: [
        {
          name: '/w/test/a.test.ts',
          status: 'failed',
          assertionResults: [
            {
              ancestorTitles: ['math'],
              title: 'adds',
              status: 'failed',
              failureMessages: ['AssertionError: expected 3 to be 4'],
              location: { line: 7, column: 3 },
            },
            { ancestorTitles: [], title: 'todo', status: 'todo' },
          ],
        },
        { name: '/w/test/b.test.ts', status: 'failed', message: 'SyntaxError: Unexpected token (3:1)', assertionResults: [] },
      ],
    });
    const r = parseJestJson(json, '/w');
    expect(r.tests).toEqual([
      {
        id: 'js:test/a.test.ts > math > adds',
        status: 'failed',
        unit: 'js:test/a.test.ts',
        file: 'test/a.test.ts',
        line: 7,
        message: 'AssertionError: expected 3 to be 4',
      },
      { id: 'js:test/a.test.ts > todo', status: 'skipped', unit: 'js:test/a.test.ts', file: 'test/a.test.ts' },
    ]);
    expect(r.units.find((u) => u.id === 'js:test/b.test.ts')).toMatchObject({
      status: 'broken',
      message: 'SyntaxError: Unexpected token (3:1)',
    });
  });

  it('vitest 4 JSON: a file whose hook failed (tests "skipped", none failed) is broken; parse errors lose colour codes and the "Transform failed" lead', () => {
    const frame =
      '\u001b[31m[PARSE_ERROR] \u001b[0mUnexpected token\n   \u001b[38;5;246m╭\u001b[0m\u001b[38;5;246m─\u001b[0m\u001b[38;5;246m[\u001b[0m test/c.test.ts:7:4 \u001b[38;5;246m]\u001b[0m\n';
    const json = JSON.stringify({
      testResults: [
        {
          name: '/w/test/hook.test.ts',
          status: 'failed',
          message: 'cannot connect',
          assertionResults: [{ ancestorTitles: ['db'], title: 'reads', status: 'skipped', failureMessages: [] }],
        },
        {
          name: '/w/test/skip.test.ts',
          status: 'failed',
          message: '',
          assertionResults: [
            { ancestorTitles: [], title: 'later', status: 'skipped', failureMessages: [] },
            {
              ancestorTitles: [],
              title: 'fails',
              status: 'failed',
              failureMessages: ['\u001b[31mAssertionError\u001b[39m: expected 1 to be 2'],
            },
          ],
        },
        { name: '/w/test/c.test.ts', status: 'failed', message: `Transform failed with 1 error:\n\n${frame}`, assertionResults: [] },
      ],
    });
    const r = parseJestJson(json, '/w');
    expect(r.units.map((u) => [u.id, u.status, u.message])).toEqual([
      ['js:test/hook.test.ts', 'broken', 'a hook (beforeAll/afterAll) or code outside the tests failed: cannot connect'],
      ['js:test/skip.test.ts', 'ok', undefined],
      ['js:test/c.test.ts', 'broken', expect.stringMatching(/^\[PARSE_ERROR\] Unexpected token \(test\/c\.test\.ts:7:4\)$/m)],
    ]);
    expect(r.units[2]!.message).not.toContain('\u001b');
    expect(r.tests.find((t) => t.id === 'js:test/skip.test.ts > fails')!.message).toBe('AssertionError: expected 1 to be 2');
  });

  it('go test -json: build-fail events of newer Go mark the package broken; a package failing without a failing test is broken too', () => {
    const lines = [
      { Action: 'build-output', ImportPath: 'example.com/m/a [example.com/m/a.test]', Output: 'a/a.go:3:9: undefined: x\n' },
      { Action: 'fail', Package: 'example.com/m/a', FailedBuild: 'example.com/m/a [example.com/m/a.test]' },
      { Action: 'run', Package: 'example.com/m/b', Test: 'TestB' },
      { Action: 'pass', Package: 'example.com/m/b', Test: 'TestB' },
      { Action: 'output', Package: 'example.com/m/b', Output: 'panic: init failed\n' },
      { Action: 'fail', Package: 'example.com/m/b' },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n');
    const r = parseGoTestJson(lines, '', 'example.com/m');
    expect(r.units.map((u) => [u.id, u.status, u.file])).toEqual([
      ['go:example.com/m/a', 'broken', 'a'],
      ['go:example.com/m/b', 'broken', 'b'],
    ]);
    expect(r.units[0]!.message).toContain('undefined: x');
    expect(r.tests).toEqual([{ id: 'go:example.com/m/b.TestB', status: 'passed', unit: 'go:example.com/m/b', file: 'b' }]);
  });

  it('libtest: doc-test ids drop the line number (it moves with every edit above it)', () => {
    const text = [
      '   Doc-tests shapes',
      '',
      'running 1 test',
      'test src/lib.rs - triangle (line 12) ... FAILED',
      '',
      'failures:',
      '',
      '---- src/lib.rs - triangle (line 12) stdout ----',
      'assertion failed',
      '',
    ].join('\n');
    const r = parseLibtestOutput(text);
    expect(r.tests).toEqual([
      { id: 'rust:doc:src/lib.rs - triangle', status: 'failed', unit: 'rust:doc:shapes', file: 'src/lib.rs', message: 'assertion failed' },
    ]);
  });

  it('cargo package ids of old and new cargo give the package name', () => {
    expect(cargoPackageName('path+file:///tmp/x#fix-ture@0.1.0')).toBe('fix-ture');
    expect(cargoPackageName('path+file:///tmp/shapes#0.1.0')).toBe('shapes');
    expect(cargoPackageName('shapes 0.1.0 (path+file:///tmp/shapes)')).toBe('shapes');
  });

  it('pytest junit: class tests get Class:: ids and 1-based lines; a teardown error keeps the failure', () => {
    const xml = `<testsuites><testsuite><testcase classname="tests.test_a.TestK" name="test_m" file="tests/test_a.py" line="5"><failure message="boom">x</failure></testcase><testcase classname="tests.test_a.TestK" name="test_m" file="tests/test_a.py" line="5"><error message="teardown"/></testcase></testsuite></testsuites>`;
    expect(parsePytestJunit(xml).tests).toEqual([
      {
        id: 'py:tests/test_a.py::TestK::test_m',
        status: 'failed',
        unit: 'py:tests/test_a.py',
        file: 'tests/test_a.py',
        line: 6,
        message: 'boom\nx',
      },
    ]);
  });

  it('node --test scripts keep their file arguments and drop their own reporters', () => {
    expect(nodeTestScriptArgs('node --test')).toBe('');
    expect(nodeTestScriptArgs('node --test test/')).toBe('test/');
    expect(nodeTestScriptArgs('node --experimental-vm-modules --test --test-reporter=spec test/*.test.js')).toBe(
      '--experimental-vm-modules test/*.test.js',
    );
    expect(nodeTestScriptArgs('node --test && eslint .')).toBeNull();
  });
});

describe('suite status (never a fake regression)', () => {
  const runner = exitCodeRunner('custom', 'make test');
  it('no parseable results and a non-zero exit is "no-results", whatever the volatile output says', () => {
    const a = toSuiteResult(runner, 'a', { tests: [], units: [], exitCode: 2, outputTail: 'no tests ran in 0.57s' }, 5, limits);
    const b = toSuiteResult(runner, 'b', { tests: [], units: [], exitCode: 2, outputTail: 'no tests ran in 0.61s' }, 5, limits);
    expect([a.status, b.status]).toEqual(['no-results', 'no-results']);
    const cmp = compareSuites(a, b);
    expect(cmp).toEqual({ newlyFailing: [], fixed: [], removed: [], brokenUnits: [], suiteBroken: false });
  });

  it('a timeout or a missing toolchain is skipped with the reason', () => {
    expect(
      toSuiteResult(runner, 'a', { tests: [], units: [], exitCode: null, killedBy: 'timeout', outputTail: '' }, 5, limits),
    ).toMatchObject({ status: 'skipped', skippedReason: 'the test run did not finish within tests.timeoutSec (60 s)' });
    expect(
      toSuiteResult(
        runner,
        'a',
        { tests: [], units: [], exitCode: 127, missingToolchain: 'go is not available', outputTail: '' },
        5,
        limits,
      ),
    ).toMatchObject({ status: 'skipped', skippedReason: 'go is not available' });
  });
});

describe('baseline cache and sandbox environment', () => {
  it('MemoryBaselineCache returns copies and evicts the least recently used key', async () => {
    const cache = new MemoryBaselineCache(2);
    const key = (n: string) => ({ repo: 'r', baseTree: n, command: 'c', lockfileHash: 'h' });
    const result = { sha: 'x', tests: [] } as unknown as SuiteResult;
    await cache.put(key('1'), result);
    await cache.put(key('2'), result);
    await cache.get(key('1'));
    await cache.put(key('3'), result);
    expect(await cache.get(key('2'))).toBeNull();
    const got = await cache.get(key('1'));
    expect(got).toEqual(result);
    expect(got).not.toBe(result);
  });

  it('the sandbox environment is an allow-list: tokens, keys and URLs never pass, even as extras', () => {
    const env = sandboxEnv({
      home: '/h',
      tmp: '/t',
      cacheDir: '/c',
      network: false,
      from: {
        PATH: '/usr/bin',
        GITHUB_TOKEN: 'x',
        PRIVATE_KEY: 'k',
        DATABASE_URL: 'postgres://',
        AWS_SECRET_ACCESS_KEY: 's',
        HTTPS_PROXY: 'http://u:p@proxy',
        HOME: '/root',
      },
      extra: { SLOPGATE_OUT: '/o', NPM_TOKEN: 'leak' },
    });
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      HOME: '/h',
      TMPDIR: '/t',
      CI: 'true',
      SLOPGATE_OUT: '/o',
      GOPROXY: 'off',
      CARGO_HOME: '/c/cargo-home',
    });
    for (const name of ['GITHUB_TOKEN', 'PRIVATE_KEY', 'DATABASE_URL', 'AWS_SECRET_ACCESS_KEY', 'HTTPS_PROXY', 'NPM_TOKEN'])
      expect(env[name]).toBeUndefined();
  });

  it("with network, installers trust the machine's CA bundle even when the host's environment names none", () => {
    const system = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'].find((f) => existsSync(f));
    const bare = sandboxEnv({ home: '/h', tmp: '/t', cacheDir: '/c', network: true, from: { PATH: '/usr/bin' } });
    for (const name of ['SSL_CERT_FILE', 'PIP_CERT', 'REQUESTS_CA_BUNDLE', 'NODE_EXTRA_CA_CERTS', 'CARGO_HTTP_CAINFO'])
      expect(bare[name]).toBe(system);
    // The host's own setting wins; without network no bundle is named (it would only slow each start).
    const own = sandboxEnv({ home: '/h', tmp: '/t', cacheDir: '/c', network: true, from: { SSL_CERT_FILE: process.execPath } });
    expect(own.PIP_CERT).toBe(process.execPath);
    expect(sandboxEnv({ home: '/h', tmp: '/t', cacheDir: '/c', network: false, from: {} }).SSL_CERT_FILE).toBeUndefined();
  });
});
