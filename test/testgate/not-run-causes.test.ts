import { afterAll, expect, it } from 'vitest';
import type { PriorDismissal } from '../../src/core/apply-dismissals.js';
import { configSchema } from '../../src/core/config-schema.js';
import type { Finding } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';
import { runGate } from '../../src/gate/run-gate.js';
import { g8 } from '../../src/guards/g8-tests/index.js';
import { MemoryBaselineCache } from '../../src/testgate/baseline-cache.js';
import { prRepo, TestRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';
import { sandboxCacheDir } from './fixtures.js';

/**
 * Issue 19, item 4: a `tests-not-run` finding's id names why the suite gave no results. A maintainer
 * who dismisses a suite that hung has not dismissed one stopped at the process limit or one whose
 * setup failed: each is its own finding, through the real pipeline and the real sandbox.
 */
const cache = sandboxCacheDir();
const baselines = new MemoryBaselineCache();
afterAll(() => cache.remove());

const CONFIG = { command: 'sh run.sh', setup: 'sh setup.sh', timeoutSec: 10, maxProcesses: 48, reruns: 0 };

function gateHead(repo: TestRepo, head: string, prior: PriorDismissal[] = []): Promise<Report> {
  return runGate({
    repoDir: repo.dir,
    base: 'main',
    head,
    guards: [g8],
    config: configSchema.parse({ tests: CONFIG }),
    dismissals: { prior },
    services: { baselineCache: baselines, tests: { cacheDir: cache.dir, repo: 'not-run-causes' } },
  });
}

function notRun(report: Report): Finding {
  const f = report.findings.find((x) => x.category === 'tests-not-run');
  expect(f, `a tests-not-run finding in ${report.decision.reason}`).toBeDefined();
  return f!;
}

needs('bwrap')('tests-not-run ids carry the cause', () => {
  it('a hung suite, the process limit and a failed setup are three findings; a dismissal of one covers only that one', async () => {
    const repo = prRepo({ 'run.sh': 'exit 0\n', 'setup.sh': 'exit 0\n' });
    repo.write({ 'run.sh': 'sleep 600\n' }).commit('hang');
    repo.checkout('main').branch('storm');
    repo.write({ 'run.sh': 'for i in $(seq 1 400); do sleep 30 & done; wait\n' }).commit('storm');
    repo.checkout('main').branch('setup');
    repo.write({ 'setup.sh': 'exit 3\n' }).commit('setup fails');

    const hung = notRun(await gateHead(repo, 'pr'));
    const storm = notRun(await gateHead(repo, 'storm'));
    const setup = notRun(await gateHead(repo, 'setup'));
    expect(hung.message).toContain('did not finish within tests.timeoutSec (10 s)');
    expect(storm.message).toContain('stopped at the process limit (48 processes)');
    expect(setup.message).toMatch(/the setup command \(tests\.setup\).* code 3/);
    expect(new Set([hung.id, storm.id, setup.id]).size).toBe(3);
    expect(hung.cause).toMatch(/^killed: timeout; /);
    expect(storm.cause).toMatch(/^killed: process-limit; /);
    expect(setup.cause).toMatch(/^setup failed: exit 3; /);

    // A maintainer dismissed the hang as a flaky timeout; the process storm on the next push still blocks.
    const prior: PriorDismissal[] = [
      { fingerprint: hung.id, by: 'maint', at: '2026-11-20T10:00:00.000Z', reason: 'flaky CI', source: 'command' },
    ];
    const again = await gateHead(repo, 'pr', prior);
    expect(notRun(again).dismissed).toMatchObject({ by: 'maint' });
    expect(again.decision.conclusion).not.toBe('failure');
    const stormAfter = await gateHead(repo, 'storm', prior);
    expect(notRun(stormAfter).dismissed).toBeUndefined();
    expect(stormAfter.decision.conclusion).toBe('failure');
  }, 240_000);
});
