import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApplicationFunction, Probot } from 'probot';
import type { Guard } from '../../core/guard.js';
import type { GateOptions } from '../../gate/run-gate.js';
import type { Report } from '../../core/report.js';
import type { Logger } from '../../core/trace.js';
import { VERSION } from '../../core/version.js';
import { GUARDS } from '../../guards/index.js';
import { modelFromEnv } from '../../llm/model-env.js';
import type { JsonModel } from '../../llm/port.js';
import { RECIPES } from '../../refiner/recipes/index.js';
import type { Recipe } from '../../refiner/types.js';
import { MemoryQueue } from '../../queue/memory-queue.js';
import type { JobQueue } from '../../queue/types.js';
import type { Store } from '../../store/store.js';
import type { QueuedPrJob } from '../../host/queued-job.js';
import { registerHandlers } from './register-handlers.js';
import { SlopgateRuntime } from './runtime.js';
import { sanctionKeyFromEnv } from '../../host/sanctions.js';
import { MirrorWorkspace } from '../../workspace/workspace-port.js';
import { RepoMirrors, githubRemoteUrl, type RemoteUrlBuilder } from '../../workspace/repo-mirror.js';
import { SlopgateMetrics } from '../../dashboard/metrics.js';
import { dashboardHandler } from '../../dashboard/server.js';
import { appDashboardOptions } from './dashboard-setup.js';

export interface SlopgateAppOptions {
  /** The GitHub App id (default: APP_ID); identifies slopgate's own comments. */
  appId?: number;
  /** Mirrors and per-job snapshots live here (default: SLOPGATE_WORKDIR or <tmp>/slopgate). */
  workDir?: string;
  /** Clone URL per repository (default: github.com or GHE_HOST). */
  remoteUrl?: RemoteUrlBuilder;
  store?: Store;
  guards?: Guard[];
  /** A durable queue (default: in-process). */
  queue?: JobQueue<QueuedPrJob>;
  /** Jobs running at once with the in-process queue. */
  concurrency?: number;
  /**
   * Take jobs from the queue in this process (default true). False on a web tier: webhooks are
   * acknowledged and queued here, and `slopgate worker` processes sharing the durable queue run them.
   */
  processJobs?: boolean;
  /**
   * Show the Refine button and accept `/slopgate refine`. Default: on whenever there is something to run
   * (the recipes always are; a model from SLOPGATE_LLM_* adds full-file patches), unless SLOPGATE_REFINER=off.
   */
  refinerAvailable?: boolean;
  /** The refiner's model (default: SLOPGATE_LLM_*; null: recipes only even when the environment names one). */
  model?: JsonModel | null;
  /** The refiner's known fixes (default: the registry). */
  recipes?: Recipe[];
  /** Resolve the threads of fixed findings (default true; GitHub refuses without contents: write, then they are minimised). */
  resolveThreads?: boolean;
  log?: Logger;
  /** The pipeline (tests inject failures). */
  gate?: (opts: GateOptions) => Promise<Report>;
  /** Key of the `/slopgate allow` marker MAC (default: derived from PRIVATE_KEY(_PATH) or WEBHOOK_SECRET). */
  sanctionKey?: Buffer;
  /** The process's Prometheus metrics (default: a new registry). */
  metrics?: SlopgateMetrics;
}

export interface SlopgateApp {
  /** The Probot application function. */
  appFn: ApplicationFunction;
  /** The runtime, once Probot has loaded the app. */
  runtime(): SlopgateRuntime;
}

/** `GET /healthz`: 200 with the queue's state while the process can take work. */
function healthHandler(getRuntime: () => SlopgateRuntime | undefined) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/healthz') return false;
    const rt = getRuntime();
    const queue = rt?.queue instanceof MemoryQueue ? rt.queue : undefined;
    res.writeHead(rt ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: Boolean(rt), version: VERSION, queue: queue?.size ?? null }));
    return true;
  };
}

/**
 * The runtime the App and `slopgate worker` share: installation Octokits from Probot (`app.auth`),
 * mirrors and scratch space under the work dir, the guards, the store and the queue.
 */
export function createSlopgateRuntime(app: Probot, opts: SlopgateAppOptions = {}): SlopgateRuntime {
  const workDir = opts.workDir ?? process.env.SLOPGATE_WORKDIR ?? join(tmpdir(), 'slopgate');
  const appId = opts.appId ?? Number(process.env.APP_ID ?? 0);
  const recipes = opts.recipes ?? RECIPES;
  const model = opts.model === null ? undefined : (opts.model ?? modelFromEnv(process.env) ?? undefined);
  const refinerAvailable = opts.refinerAvailable ?? (process.env.SLOPGATE_REFINER !== 'off' && (recipes.length > 0 || model !== undefined));
  const mirrors = new RepoMirrors({ root: join(workDir, 'mirrors'), remoteUrl: opts.remoteUrl ?? githubRemoteUrl() });
  return new SlopgateRuntime(
    {
      octokitFor: (id) => app.auth(id),
      mirrors,
      workspace: new MirrorWorkspace(mirrors, join(workDir, 'jobs')),
      cacheDir: join(workDir, 'cache'),
      guards: opts.guards ?? GUARDS,
      ...(opts.store ? { store: opts.store } : {}),
      appId,
      sanctionKey: opts.sanctionKey ?? sanctionKeyFromEnv(),
      refinerAvailable,
      recipes,
      ...(model ? { model } : {}),
      resolveThreads: opts.resolveThreads ?? process.env.SLOPGATE_RESOLVE_THREADS !== 'false',
      log: opts.log ?? app.log,
      ...(opts.gate ? { gate: opts.gate } : {}),
    },
    {
      ...(opts.queue ? { queue: opts.queue } : {}),
      ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
      ...(opts.metrics ? { metrics: opts.metrics } : {}),
    },
  );
}

/** Builds the slopgate Probot app; everything the tests need to replace is an option. */
export function createSlopgateApp(opts: SlopgateAppOptions = {}): SlopgateApp {
  let runtime: SlopgateRuntime | undefined;
  const appFn: ApplicationFunction = async (app: Probot, options) => {
    const metrics = opts.metrics ?? new SlopgateMetrics();
    const sanctionKey = opts.sanctionKey ?? sanctionKeyFromEnv();
    runtime = createSlopgateRuntime(app, { ...opts, metrics, sanctionKey });
    registerHandlers(app, runtime);
    try {
      // Probot types it as always there, but `probot.load(appFn)` (tests, custom servers) passes no addHandler.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      options.addHandler?.(healthHandler(() => runtime));
      // The dashboard and /metrics, on the webhooks' port under their own paths (dashboard/server.ts).
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (opts.store) options.addHandler?.(dashboardHandler(appDashboardOptions(app, opts.store, () => runtime, metrics, sanctionKey)));
    } catch {
      // Loaded without an HTTP server (probot.load in tests, serverless adapters): no health endpoint.
    }
    // A web tier only queues: `slopgate worker` processes elsewhere take the jobs from PostgreSQL.
    if (opts.processJobs !== false) await runtime.start();
  };
  return {
    appFn,
    runtime: () => {
      if (!runtime) throw new Error('the slopgate app has not been loaded by Probot yet');
      return runtime;
    },
  };
}

export default createSlopgateApp().appFn;
