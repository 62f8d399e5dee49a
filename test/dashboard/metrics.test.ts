import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { METRIC_NAMES, SlopgateMetrics } from '../../src/dashboard/metrics.js';
import { makeReport } from '../store/backends.js';
import { parsePrometheusText } from '../helpers/prometheus-text.js';

describe('the Prometheus metrics', () => {
  it('follow a known sequence of jobs, and the queue is read when scraped', async () => {
    const m = new SlopgateMetrics({ host: 'worker-1' });
    m.watchQueue(() => Promise.resolve({ pending: 3, running: 1, oldestPendingAt: new Date(Date.now() - 90_000), concurrency: 2 }));
    const pass = makeReport({ outcome: 'PASS' });
    pass.guards = [{ id: 'G2', name: 'syntax', status: 'pass', files: 1, findings: 0, ms: 40 }];
    pass.sections.tests = {
      regressions: [],
      brokenUnits: [],
      suiteBroken: false,
      fixed: [],
      removed: [],
      flaky: [],
      baseline: { sha: 'b', status: 'ok', failing: 0, broken: 0, total: 3, durationMs: 2000, cached: false },
      candidate: { sha: 'c', status: 'ok', failing: 0, broken: 0, total: 3, durationMs: 2500 },
      dependencies: { base: { status: 'installed', ecosystem: 'npm' }, head: { status: 'cached', ecosystem: 'npm' } },
      egressRefused: ['evil.example:443: not a registry'],
    };
    m.delivery('pull_request', true);
    m.delivery('pull_request', false);
    m.jobStarted(1.5);
    m.jobEnded('reported', pass);
    m.jobEnded('reported', makeReport({ outcome: 'STUCK' }));
    m.jobEnded('infrastructure-error', undefined, { kind: 'sandbox' });
    m.sandboxRefused();
    m.jobEnded('config-error');
    const x = parsePrometheusText((await m.text()).body);
    expect(x.sum('slopgate_gates_total')).toBe(2);
    expect(x.sum('slopgate_gates_total', { outcome: 'PASS', host: 'worker-1' })).toBe(1);
    expect(x.sum('slopgate_jobs_total', { result: 'reported' })).toBe(2);
    expect(x.sum('slopgate_jobs_total', { result: 'infrastructure-error' })).toBe(1);
    expect(x.sum('slopgate_errors_total', { kind: 'sandbox' })).toBe(1);
    expect(x.sum('slopgate_errors_total', { kind: 'config' })).toBe(1);
    expect(x.sum('slopgate_sandbox_refusals_total', { kind: 'isolation' })).toBe(1);
    expect(x.sum('slopgate_sandbox_refusals_total', { kind: 'egress' })).toBe(1);
    expect(x.sum('slopgate_stage_duration_seconds_count', { stage: 'G2' })).toBe(1);
    expect(x.sum('slopgate_stage_duration_seconds_sum', { stage: 'tests:head' })).toBe(2.5);
    expect(x.sum('slopgate_baseline_cache_total', { result: 'miss' })).toBe(1);
    expect(x.sum('slopgate_dependency_installs_total', { status: 'cached' })).toBe(1);
    expect(x.sum('slopgate_dependency_cache_hit_ratio')).toBe(0.5);
    expect(x.sum('slopgate_webhook_deliveries_total', { result: 'duplicate' })).toBe(1);
    expect(x.sum('slopgate_webhook_lag_seconds_count')).toBe(1);
    expect(x.sum('slopgate_queue_depth', { state: 'pending' })).toBe(3);
    expect(x.sum('slopgate_queue_oldest_job_age_seconds')).toBeGreaterThanOrEqual(90);
    expect(x.sum('slopgate_queue_workers', { kind: 'concurrency' })).toBe(2);
  });

  it('METRIC_NAMES is every registered metric, and docs/app-operation.md lists each', async () => {
    const m = new SlopgateMetrics();
    const names = (await m.registry.getMetricsAsJSON()).map((x) => x.name).sort();
    expect(names).toEqual([...METRIC_NAMES].sort());
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'app-operation.md'), 'utf8');
    for (const name of METRIC_NAMES) expect(doc, name).toContain(`\`${name}\``);
  });
});
