import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli/check.js';
import type { BaselineKey } from '../../src/core/ports.js';
import type { Report } from '../../src/core/report.js';
import type { SuiteResult } from '../../src/core/suite-result.js';
import { FileBaselineCache } from '../../src/testgate/baseline-cache.js';
import { prRepo } from '../helpers/git-repo.js';

/**
 * Without `--db` the CLI keeps test baselines in files: the second check against the same base runs only
 * the head's suite. The files are private, whole, checked against their key, and bounded.
 */

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'slopgate-baseline-files-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const key = (baseTree: string): BaselineKey => ({ repo: 'acme/app', baseTree, command: 'npm test', lockfileHash: 'none' });
const result = (sha: string): SuiteResult => ({
  runner: 'node-test',
  command: 'node --test',
  status: 'ok',
  sha,
  durationMs: 12,
  exitCode: 0,
  outputTail: '',
  tests: [{ id: 'node:test/a.test.js::adds', status: 'passed', unit: 'node:test/a.test.js' }],
  units: [],
});

describe('FileBaselineCache', () => {
  it('keeps a result under its key in a private folder, and reads it back', async () => {
    const dir = join(tmp(), 'baselines');
    const cache = new FileBaselineCache(dir);
    expect(await cache.get(key('t1'))).toBeNull();
    await cache.put(key('t1'), result('aaa'));
    expect(await cache.get(key('t1'))).toEqual(result('aaa'));
    expect(await cache.get(key('t2'))).toBeNull();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(dir);
    expect(statSync(join(dir, file!)).mode & 0o777).toBe(0o600);
  });

  it('a file that is not a suite result, or holds another key, is a miss', async () => {
    const dir = tmp();
    const cache = new FileBaselineCache(dir);
    await cache.put(key('t1'), result('aaa'));
    const [file] = readdirSync(dir);
    const path = join(dir, file!);
    writeFileSync(path, '{"key": "x", "result": ');
    expect(await cache.get(key('t1'))).toBeNull();
    await cache.put(key('t2'), result('bbb'));
    const other = readdirSync(dir).find((n) => n !== file)!;
    // the other key's file under this key's name: its own key does not match
    writeFileSync(path, readFileSync(join(dir, other)));
    expect(await cache.get(key('t1'))).toBeNull();
  });

  it('keeps at most its bound, dropping what was used longest ago', async () => {
    const dir = tmp();
    const cache = new FileBaselineCache(dir, 2);
    await cache.put(key('t1'), result('1'));
    await cache.put(key('t2'), result('2'));
    // Written two hours and one hour ago: t1 is the older, until it is read.
    const fileOf = (tree: string) => readdirSync(dir).find((n) => readFileSync(join(dir, n), 'utf8').includes(`\\"${tree}\\"`))!;
    utimesSync(join(dir, fileOf('t1')), new Date(Date.now() - 7_200_000), new Date(Date.now() - 7_200_000));
    utimesSync(join(dir, fileOf('t2')), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    expect(await cache.get(key('t1'))).toEqual(result('1'));
    await cache.put(key('t3'), result('3'));
    expect(await cache.get(key('t1'))).toEqual(result('1'));
    expect(await cache.get(key('t2'))).toBeNull();
    expect(await cache.get(key('t3'))).toEqual(result('3'));
  });
});

describe('slopgate check without --db', () => {
  it('runs the base suite once: the second check against the same base takes its baseline from the files', async () => {
    const dir = tmp();
    const saved = process.env.SLOPGATE_BASELINE_CACHE_DIR;
    process.env.SLOPGATE_BASELINE_CACHE_DIR = dir;
    try {
      const repo = prRepo(
        {
          'package.json': JSON.stringify({ name: 'app', version: '1.0.0', scripts: { test: 'node --test' } }),
          'src/add.js': 'exports.add = (a, b) => a + b;\n',
          'test/add.test.js':
            "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\n\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
        },
        { 'src/add.js': 'exports.add = (a, b) => b + a;\n' },
      );
      const check = async () => {
        let out = '';
        await runCheck({ repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, only: ['G8'] }, (s) => (out += s));
        return JSON.parse(out) as Report;
      };
      const first = await check();
      expect(first.sections.tests?.baseline?.cached).toBe(false);
      expect(readdirSync(dir)).toHaveLength(1);
      const second = await check();
      expect(second.sections.tests?.baseline?.cached).toBe(true);
      expect(second.decision.outcome).toBe('PASS');
    } finally {
      if (saved === undefined) delete process.env.SLOPGATE_BASELINE_CACHE_DIR;
      else process.env.SLOPGATE_BASELINE_CACHE_DIR = saved;
    }
  }, 240_000);
});
