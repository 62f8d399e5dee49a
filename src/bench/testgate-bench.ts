import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { configSchema } from '../core/config-schema.js';
import { runGate } from '../gate/run-gate.js';
import { g8 } from '../guards/g8-tests/index.js';
import { MemoryBaselineCache } from '../testgate/index.js';
import { sandboxEnv, runSandboxed, sandboxCapabilities } from '../sandbox/index.js';

/**
 * Gate time of G8 on a fixture PR (a `node --test` suite doing real CPU work), with a cold and a warm
 * baseline cache, against one plain run of the same suite outside the gate and its sandbox.
 * Target (issue 17; DESIGN §12 said 1.15): warm ≤ 1.10 × one plain suite run.
 */
export interface TestGateBenchResult {
  tests: number;
  plainMs: number;
  coldMs: number;
  warmMs: number;
  warmRatio: number;
  coldRatio: number;
}

function write(dir: string, files: Record<string, string>): void {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
}

function testFile(index: number, perFile: number): string {
  const cases = Array.from(
    { length: perFile },
    (_, i) => `test('primes below ${20_000 + i * 50} (${index}.${i})', () => {\n  assert.ok(countPrimes(${20_000 + i * 50}) > 2000);\n});`,
  ).join('\n\n');
  return `'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\nconst { countPrimes } = require('../src/primes.js');\n\n${cases}\n`;
}

const PRIMES = `'use strict';\nfunction countPrimes(n) {\n  let count = 0;\n  for (let k = 2; k < n; k++) {\n    let prime = true;\n    for (let d = 2; d * d <= k; d++) if (k % d === 0) { prime = false; break; }\n    if (prime) count++;\n  }\n  return count;\n}\nmodule.exports = { countPrimes };\n`;

/** Builds the fixture: main with the suite, pr with a harmless source change. */
export function buildTestGateFixture(files = 8, perFile = 25): string {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-bench-tests-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'bench@example.com');
  git('config', 'user.name', 'bench');
  const suite: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'bench', version: '1.0.0', scripts: { test: 'node --test' } }),
    'src/primes.js': PRIMES,
  };
  for (let i = 0; i < files; i++) suite[`test/primes-${i}.test.js`] = testFile(i, perFile);
  write(dir, suite);
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  git('checkout', '-q', '-b', 'pr');
  write(dir, { 'src/primes.js': PRIMES.replace('let count = 0;', 'let count = 0; // counts primes below n') });
  git('commit', '-q', '-am', 'comment');
  return dir;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function benchTestGate(opts: { rounds?: number; files?: number; perFile?: number } = {}): Promise<TestGateBenchResult> {
  const rounds = opts.rounds ?? 5;
  const dir = buildTestGateFixture(opts.files, opts.perFile);
  const cacheDir = mkdtempSync(join(tmpdir(), 'slopgate-bench-cache-'));
  try {
    const config = configSchema.parse({ tests: { reruns: 0 } });
    const gate = (cache: MemoryBaselineCache) =>
      runGate({
        repoDir: dir,
        base: 'main',
        head: 'pr',
        guards: [g8],
        config,
        services: { baselineCache: cache, tests: { cacheDir, repo: 'bench' } },
      });
    // Cold runs first (each with an empty cache); then plain and warm runs alternate, so that load
    // from other processes hits both alike.
    const plain: number[] = [];
    const cold: number[] = [];
    const warm: number[] = [];
    const cache = new MemoryBaselineCache();
    for (let i = 0; i < rounds; i++) {
      const fresh = new MemoryBaselineCache();
      const t0 = performance.now();
      const first = await gate(i === 0 ? cache : fresh);
      cold.push(performance.now() - t0);
      if (first.findings.length || first.guards[0]?.status !== 'pass')
        throw new Error(`bench fixture did not pass G8: ${JSON.stringify(first.guards[0])}`);
    }
    // The plain run gets the same environment the sandbox builds, so only the gate and the sandbox differ.
    const plainEnv = sandboxEnv({ home: cacheDir, tmp: tmpdir(), cacheDir, network: false });
    let tests = 0;
    for (let i = 0; i < rounds; i++) {
      let t0 = performance.now();
      const r = spawnSync('node', ['--test'], { cwd: dir, encoding: 'utf8', env: plainEnv });
      plain.push(performance.now() - t0);
      tests = Number(/# tests (\d+)/.exec(r.stdout)?.[1] ?? 0);
      t0 = performance.now();
      await gate(cache);
      warm.push(performance.now() - t0);
    }
    const plainMs = median(plain);
    const res = {
      tests,
      plainMs,
      coldMs: median(cold),
      warmMs: median(warm),
      warmRatio: median(warm) / plainMs,
      coldRatio: median(cold) / plainMs,
    };
    return res;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

export interface SandboxStartupResult {
  /** Median wall time of `true` run directly through /bin/sh (ms). */
  directMs: number;
  /** Median wall time of `true` through runSandboxed (bwrap, cgroups, seccomp) (ms). */
  sandboxMs: number;
  runs: number;
  sandbox: string;
}

/** The sandbox's start-up cost per run: `true` under the sandbox vs the same command spawned directly. */
export async function benchSandboxStartup(runs = 15): Promise<SandboxStartupResult> {
  const root = mkdtempSync(join(tmpdir(), 'slopgate-bench-sandbox-'));
  try {
    for (const d of ['work', 'home', 'tmp', 'cache']) mkdirSync(join(root, d));
    const direct: number[] = [];
    const boxed: number[] = [];
    let sandbox = 'none';
    for (let i = 0; i < runs; i++) {
      let t0 = performance.now();
      spawnSync('/bin/sh', ['-c', 'true'], { cwd: join(root, 'work') });
      direct.push(performance.now() - t0);
      t0 = performance.now();
      const r = await runSandboxed({
        command: 'true',
        cwd: join(root, 'work'),
        home: join(root, 'home'),
        tmp: join(root, 'tmp'),
        cacheDir: join(root, 'cache'),
        writable: [root],
        timeoutMs: 30_000,
        memoryMb: 1024,
        maxProcesses: 64,
        isolation: 'best-effort',
      });
      boxed.push(performance.now() - t0);
      sandbox = r.isolation.sandbox;
    }
    return { directMs: median(direct), sandboxMs: median(boxed), runs, sandbox };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** One line for `npm run bench`. */
export async function testGateBenchLine(): Promise<string> {
  const s = await benchSandboxStartup();
  const startup = `sandbox start-up (${s.sandbox === 'bwrap' ? 'bwrap' : `no sandbox: ${sandboxCapabilities().unavailable ?? ''}`}), median of ${s.runs}: \`true\` ${s.sandboxMs.toFixed(0)} ms in the sandbox vs ${s.directMs.toFixed(1)} ms direct (+${(s.sandboxMs - s.directMs).toFixed(0)} ms per run)`;
  const r = await benchTestGate();
  return (
    `${startup}\n` +
    `test gate (G8), ${r.tests}-test node --test suite: plain run ${r.plainMs.toFixed(0)} ms; gate cold ${r.coldMs.toFixed(0)} ms (${r.coldRatio.toFixed(2)}×), warm ${r.warmMs.toFixed(0)} ms (${r.warmRatio.toFixed(2)}×, target ≤ 1.10×)`
  );
}
