import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema, type SlopgateConfigInput } from '../../src/core/config-schema.js';
import { runGate } from '../../src/gate/run-gate.js';
import type { Report } from '../../src/core/report.js';
import { g8 } from '../../src/guards/g8-tests/index.js';
import type { BaselineCache } from '../../src/core/ports.js';
import { MemoryBaselineCache } from '../../src/testgate/baseline-cache.js';
import { evidenceViolations } from '../helpers/evidence.js';
import type { TestRepo } from '../helpers/git-repo.js';

/** A per-file build cache dir for the sandbox (Go/Cargo caches), removed by the caller. */
export function sandboxCacheDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-g8-cache-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface G8Options {
  cache?: BaselineCache;
  cacheDir: string;
  head?: string;
  tests?: NonNullable<SlopgateConfigInput['tests']>;
  mergeRef?: string;
}

/** Runs the real pipeline with G8 only, main → pr (or `head`); fails when G8 wrote evidence its schema rejects. */
export async function gateTests(repo: TestRepo, opts: G8Options): Promise<Report> {
  const report = await runGate({
    repoDir: repo.dir,
    base: 'main',
    head: opts.head ?? 'pr',
    guards: [g8],
    config: configSchema.parse({ tests: { timeoutSec: 120, ...opts.tests } }),
    services: {
      baselineCache: opts.cache ?? new MemoryBaselineCache(),
      tests: { cacheDir: opts.cacheDir, repo: 'fixture', ...(opts.mergeRef ? { mergeRef: opts.mergeRef } : {}) },
    },
  });
  const bad = evidenceViolations(report.findings, [g8]);
  if (bad.length) throw new Error(`evidence G8's schema rejects:\n${bad.join('\n')}`);
  return report;
}

export function g8Status(report: Report) {
  return report.guards.find((g) => g.id === 'G8')!;
}

export interface TestsSection {
  runner?: string;
  command?: string;
  internalCommand?: string;
  baseline?: { failing: number; total: number; cached: boolean; durationMs: number };
  candidate?: { failing: number; total: number; durationMs: number };
  regressions: string[];
  brokenUnits: string[];
  fixed: string[];
  removed: string[];
  flaky: string[];
  skipped?: string;
}

export function testsSection(report: Report): TestsSection {
  return report.sections.tests as TestsSection;
}
