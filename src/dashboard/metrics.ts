import { hostname } from 'node:os';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Report } from '../core/report.js';
import type { QueueStats } from '../queue/types.js';

/**
 * slopgate's Prometheus metrics (prom-client), one registry per process. The App and `slopgate worker`
 * observe each job here as it ends; the queue is read when scraped. Names and labels are listed in
 * docs/app-operation.md (`METRIC_NAMES` below is the list the docs test checks against).
 */

const GATE_BUCKETS = [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1200, 3600];
const STAGE_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600];
const LAG_BUCKETS = [0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900];

export class SlopgateMetrics {
  readonly registry = new Registry();
  /** The machine this process runs on: the `host` label of the gates it ran. */
  readonly host: string;
  private readonly gates: Counter<'outcome' | 'host'>;
  private readonly jobs: Counter<'result'>;
  private readonly gateSeconds: Histogram<'host'>;
  private readonly stageSeconds: Histogram<'stage'>;
  private readonly installs: Counter<'ecosystem' | 'status'>;
  private readonly baselines: Counter<'result'>;
  private readonly refusals: Counter<'kind'>;
  private readonly deliveries: Counter<'event' | 'result'>;
  private readonly lag: Histogram;
  private readonly errors: Counter<'kind'>;
  private queue: (() => Promise<QueueStats | null>) | undefined;

  constructor(opts: { host?: string } = {}) {
    this.host = opts.host ?? hostname();
    const registers = [this.registry];
    this.gates = new Counter({
      name: 'slopgate_gates_total',
      help: 'Gates that reported, by outcome and host',
      labelNames: ['outcome', 'host'],
      registers,
    });
    this.jobs = new Counter({
      name: 'slopgate_jobs_total',
      help: 'Gate jobs that ended, by result (reported, skipped, superseded, config-error, infrastructure-error)',
      labelNames: ['result'],
      registers,
    });
    this.gateSeconds = new Histogram({
      name: 'slopgate_gate_duration_seconds',
      help: 'Time of one gate (the pipeline, from the first guard to the decision)',
      labelNames: ['host'],
      buckets: GATE_BUCKETS,
      registers,
    });
    this.stageSeconds = new Histogram({
      name: 'slopgate_stage_duration_seconds',
      help: 'Time of one stage of a gate: each guard by id, and the test suite at the base and at the head',
      labelNames: ['stage'],
      buckets: STAGE_BUCKETS,
      registers,
    });
    this.installs = new Counter({
      name: 'slopgate_dependency_installs_total',
      help: 'Dependency stages of the test gate, per side: installed, cached (a cache hit), prepared, failed, none or off',
      labelNames: ['ecosystem', 'status'],
      registers,
    });
    this.baselines = new Counter({
      name: 'slopgate_baseline_cache_total',
      help: "The test gate's baseline (the suite at the base): hit (from the cache) or miss (run)",
      labelNames: ['result'],
      registers,
    });
    this.refusals = new Counter({
      name: 'slopgate_sandbox_refusals_total',
      help: 'What the sandbox refused: egress (a connection the egress proxy refused), isolation (no sandbox, nothing ran)',
      labelNames: ['kind'],
      registers,
    });
    this.deliveries = new Counter({
      name: 'slopgate_webhook_deliveries_total',
      help: 'Webhook deliveries received, by event and result (accepted, duplicate)',
      labelNames: ['event', 'result'],
      registers,
    });
    this.lag = new Histogram({
      name: 'slopgate_webhook_lag_seconds',
      help: 'From a webhook delivery to its gate job starting (time in the queue)',
      buckets: LAG_BUCKETS,
      registers,
    });
    this.errors = new Counter({
      name: 'slopgate_errors_total',
      help: 'Errors by kind: job (an outage), config, guard (a guard crashed or ran out of time), sandbox, tree, resources, store',
      labelNames: ['kind'],
      registers,
    });
    // prom-client calls `collect` with the gauge as `this`; the queue is read through these.
    const queueStats = () => this.queueStats();
    const installs = this.installs;
    new Gauge({
      name: 'slopgate_queue_depth',
      help: 'Gate jobs in the queue, by state (pending, running)',
      labelNames: ['state'],
      registers,
      async collect() {
        const s = await queueStats();
        this.set({ state: 'pending' }, s?.pending ?? 0);
        this.set({ state: 'running' }, s?.running ?? 0);
      },
    });
    new Gauge({
      name: 'slopgate_queue_oldest_job_age_seconds',
      help: 'Age of the oldest waiting gate job (0 when none waits)',
      registers,
      async collect() {
        const s = await queueStats();
        this.set(s?.oldestPendingAt ? Math.max(0, (Date.now() - s.oldestPendingAt.getTime()) / 1000) : 0);
      },
    });
    new Gauge({
      name: 'slopgate_queue_workers',
      help: 'Gate jobs this process runs at once (concurrency), and workers holding a lease (durable queue)',
      labelNames: ['kind'],
      registers,
      async collect() {
        const s = await queueStats();
        this.set({ kind: 'concurrency' }, s?.concurrency ?? 0);
        if (s?.workers !== undefined) this.set({ kind: 'leased' }, s.workers);
      },
    });
    new Gauge({
      name: 'slopgate_dependency_cache_hit_ratio',
      help: 'Dependency stages served from the cache / those that installed or hit the cache (since start)',
      registers,
      async collect() {
        const values = (await installs.get()).values;
        const count = (status: string) => values.filter((v) => v.labels.status === status).reduce((n, v) => n + v.value, 0);
        const hits = count('cached');
        const total = hits + count('installed');
        this.set(total ? hits / total : 0);
      },
    });
  }

  /** Where the queue's depth comes from (the runtime's queue). */
  watchQueue(stats: () => Promise<QueueStats | null>): void {
    this.queue = stats;
  }

  private async queueStats(): Promise<QueueStats | null> {
    try {
      return (await this.queue?.()) ?? null;
    } catch {
      this.errors.inc({ kind: 'store' });
      return null;
    }
  }

  delivery(event: string, accepted: boolean): void {
    this.deliveries.inc({ event, result: accepted ? 'accepted' : 'duplicate' });
  }

  /** A gate job started `lagSeconds` after its webhook arrived. */
  jobStarted(lagSeconds: number): void {
    if (Number.isFinite(lagSeconds) && lagSeconds >= 0) this.lag.observe(lagSeconds);
  }

  /** How a job ended, with its report when it reported one. */
  jobEnded(result: string, report?: Report, error?: { kind: string }): void {
    this.jobs.inc({ result });
    if (error) this.errors.inc({ kind: error.kind });
    if (result === 'config-error') this.errors.inc({ kind: 'config' });
    if (report) this.gate(report);
  }

  /** One gate's report: its outcome, its times, its installs, baseline, refusals and crashed guards. */
  gate(report: Report): void {
    this.gates.inc({ outcome: report.decision.outcome, host: this.host });
    this.gateSeconds.observe({ host: this.host }, report.durationMs / 1000);
    for (const g of report.guards) if (g.status !== 'skipped') this.stageSeconds.observe({ stage: g.id }, g.ms / 1000);
    const tests = report.sections.tests;
    if (tests?.baseline && !tests.baseline.cached) this.stageSeconds.observe({ stage: 'tests:base' }, tests.baseline.durationMs / 1000);
    if (tests?.candidate) this.stageSeconds.observe({ stage: 'tests:head' }, tests.candidate.durationMs / 1000);
    if (tests?.baseline) this.baselines.inc({ result: tests.baseline.cached ? 'hit' : 'miss' });
    for (const side of tests?.dependencies ? [tests.dependencies.base, tests.dependencies.head] : []) {
      this.installs.inc({ ecosystem: side.ecosystem ?? 'none', status: side.status });
    }
    if (tests?.egressRefused?.length) this.refusals.inc({ kind: 'egress' }, tests.egressRefused.length);
    const crashed = report.findings.filter((f) => f.category === 'guard-error').length;
    if (crashed) this.errors.inc({ kind: 'guard' }, crashed);
  }

  /** An error outside a job's own result (the store could not record a job, say). */
  error(kind: string): void {
    this.errors.inc({ kind });
  }

  /** The sandbox could not be established: nothing ran (the job's outage is counted by jobEnded). */
  sandboxRefused(): void {
    this.refusals.inc({ kind: 'isolation' });
  }

  /** Prometheus text exposition. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Every metric slopgate exposes (docs/app-operation.md lists each; a test checks the list). */
export const METRIC_NAMES = [
  'slopgate_gates_total',
  'slopgate_jobs_total',
  'slopgate_gate_duration_seconds',
  'slopgate_stage_duration_seconds',
  'slopgate_queue_depth',
  'slopgate_queue_oldest_job_age_seconds',
  'slopgate_queue_workers',
  'slopgate_dependency_installs_total',
  'slopgate_dependency_cache_hit_ratio',
  'slopgate_baseline_cache_total',
  'slopgate_sandbox_refusals_total',
  'slopgate_webhook_deliveries_total',
  'slopgate_webhook_lag_seconds',
  'slopgate_errors_total',
] as const;
