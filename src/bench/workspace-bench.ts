import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { configSchema } from '../core/config-schema.js';
import type { TestsSection } from '../core/report-sections.js';
import { runGate } from '../gate/run-gate.js';
import { g8 } from '../guards/g8-tests/index.js';
import { MemoryBaselineCache } from '../testgate/index.js';

/**
 * The test gate in a monorepo: an npm workspace of `packages` packages, each with its own `node --test`
 * suite doing real CPU work, and a pull request that changes one package (nothing depends on it).
 * Measured with a cold baseline cache: the gate as it runs by default (only that package's suite, at
 * base and head), the same PR with `tests.workspaces: off` (the root's `npm test --workspaces` runs
 * every suite), and a PR that edits a root file (every package's suite, each in its folder).
 */

function put(dir: string, files: Record<string, string>): void {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
}

const PRIMES = `'use strict';\nexports.countPrimes = (n) => {\n  let count = 0;\n  for (let k = 2; k < n; k++) {\n    let prime = true;\n    for (let d = 2; d * d <= k; d++) if (k % d === 0) { prime = false; break; }\n    if (prime) count++;\n  }\n  return count;\n};\n`;

function suite(i: number, cases: number): string {
  const tests = Array.from(
    { length: cases },
    (_, k) => `test('primes below ${40_000 + k * 100} (${i}.${k})', () => {\n  assert.ok(countPrimes(${40_000 + k * 100}) > 4000);\n});`,
  ).join('\n\n');
  return `'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\nconst { countPrimes } = require('../index.js');\n\n${tests}\n`;
}

/** The workspace on `main`, a `pr` branch changing package p7, and a `shared` branch changing a root file. */
export function generateWorkspace(packages = 50, cases = 10): string {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-bench-workspace-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'bench@slopgate.invalid');
  git('config', 'user.name', 'bench');
  const files: Record<string, string> = {
    'package.json': JSON.stringify(
      { name: 'mono', private: true, workspaces: ['packages/*'], scripts: { test: 'npm test --workspaces' } },
      null,
      2,
    ),
  };
  for (let i = 0; i < packages; i++) {
    files[`packages/p${i}/package.json`] = JSON.stringify(
      { name: `@mono/p${i}`, version: '1.0.0', scripts: { test: 'node --test' } },
      null,
      2,
    );
    files[`packages/p${i}/index.js`] = PRIMES;
    files[`packages/p${i}/test/primes.test.js`] = suite(i, cases);
  }
  put(dir, files);
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  git('checkout', '-q', '-b', 'pr');
  put(dir, { 'packages/p7/index.js': PRIMES.replace('let count = 0;', 'let count = 0; // primes below n') });
  git('commit', '-q', '-am', 'p7: comment');
  git('checkout', '-q', '-b', 'shared', 'main');
  put(dir, { 'scripts/release.js': 'console.log("release");\n' });
  git('add', '-A');
  git('commit', '-q', '-m', 'a root script');
  return dir;
}

interface Timed {
  ms: number;
  tests?: TestsSection;
}

async function gateOnce(dir: string, head: string, workspaces: 'auto' | 'off', cacheDir: string): Promise<Timed> {
  const t0 = performance.now();
  const report = await runGate({
    repoDir: dir,
    base: 'main',
    head,
    guards: [g8],
    config: configSchema.parse({ tests: { reruns: 0, workspaces, timeoutSec: 1800 } }),
    services: { baselineCache: new MemoryBaselineCache(), tests: { cacheDir, repo: 'bench-workspace' } },
  });
  const g8Status = report.guards.find((g) => g.id === 'G8');
  if (g8Status?.status !== 'pass') throw new Error(`the workspace bench fixture did not pass G8: ${JSON.stringify(g8Status)}`);
  return { ms: performance.now() - t0, ...(report.sections.tests ? { tests: report.sections.tests } : {}) };
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** One line for `npm run bench` (BENCH_ONLY=workspace; BENCH_PACKAGES sets the size, default 50). */
export async function workspaceBenchLine(packages = Number(process.env.BENCH_PACKAGES ?? 50)): Promise<string> {
  const dir = generateWorkspace(packages);
  const cacheDir = mkdtempSync(join(tmpdir(), 'slopgate-bench-cache-'));
  try {
    const one = await gateOnce(dir, 'pr', 'auto', cacheDir);
    const root = await gateOnce(dir, 'pr', 'off', cacheDir);
    const every = await gateOnce(dir, 'shared', 'auto', cacheDir);
    const ran = one.tests?.workspace?.packages.length ?? 0;
    const tests = every.tests?.candidate?.total ?? 0;
    return (
      `test gate in a ${packages}-package npm workspace (${tests} node --test tests, cold baseline, base and head): ` +
      `a PR touching one package ${s(one.ms)} (${ran} package's suite ran); the same PR with tests.workspaces: off ` +
      `(the root's npm test --workspaces, every suite) ${s(root.ms)} (${(root.ms / one.ms).toFixed(1)}×); ` +
      `a PR editing a root file (every package's suite, each in its folder) ${s(every.ms)} (${(every.ms / one.ms).toFixed(1)}×)`
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  }
}
