import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ReportSections } from '../core/report-sections.js';
import type { GuardDone, GuardFailed, GuardStarted, InitRun, RunGuard } from './guard-messages.js';

/**
 * Threads for static guards (see guard-worker.ts). Idle threads are kept (unref'd, so they never keep
 * the process alive) and reused by the next run: loading the guards' modules costs more than a run of
 * a small PR. A thread is terminated when a guard overruns its budget and is not reused.
 */

const SELF = import.meta.url;
/** Under the TypeScript sources (tests, tsx) the worker is a .ts file and needs tsx's loader. */
const FROM_SOURCE = SELF.endsWith('.ts');
const WORKER_URL = new URL(FROM_SOURCE ? './guard-worker.ts' : './guard-worker.js', SELF);
const MAX_IDLE = 4;
/** Starting a thread and loading the guard modules: generous, for a loaded machine. Not the guard's budget. */
const STARTUP_MS = 120_000;

const idle: Worker[] = [];

/** A worker that registers tsx's loader first, then imports the TypeScript worker module. */
function sourceWorker(): Worker {
  // The ESM entry of tsx's API (require.resolve gives the CommonJS one, which cannot register from here).
  const api = pathToFileURL(
    createRequire(SELF)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return new Worker(code, { eval: true });
}

function spawn(): Worker {
  const w = FROM_SOURCE ? sourceWorker() : new Worker(WORKER_URL);
  w.unref();
  // An uncaught error or exit is reported to whoever waits on it; nothing else listens.
  w.on('error', () => undefined);
  return w;
}

/** Starts a thread ahead of need (it loads the guard registry while the caller does other work). */
export function prewarmGuardThread(): void {
  if (idle.length === 0) idle.push(spawn());
}

export interface GuardWorkResult {
  findings: GuardDone['findings'];
  errors: number;
  skipped?: string;
  sections: ReportSections;
}

export class GuardBudgetExceeded extends Error {
  constructor(readonly budgetMs: number) {
    super(`exceeded its time budget of ${budgetMs} ms and was stopped`);
    this.name = 'GuardBudgetExceeded';
  }
}

/**
 * One pipeline run's use of a thread: initialised lazily, replaced after a guard is stopped. Several
 * guards may be in the thread at once; each answer is matched to its request by number. A guard
 * whose thread was stopped because another guard in it overran its budget runs again in a fresh
 * thread: its own budget was not the cause.
 */
export class GuardWorkerSession {
  private worker: Worker | null = null;
  private seq = 0;
  /** Threads this session terminated because a guard in them overran its budget. */
  private readonly stopped = new WeakSet<Worker>();
  /** Guards in each thread: it keeps the process alive while any is. */
  private readonly running = new WeakMap<Worker, number>();

  constructor(private readonly init: Omit<InitRun, 'type'>) {}

  private acquire(): Worker {
    if (this.worker) return this.worker;
    const w = idle.pop() ?? spawn();
    w.postMessage({ type: 'init', ...this.init } satisfies InitRun);
    this.worker = w;
    return w;
  }

  /** Terminates `w` (if it is still this session's thread, the next guard gets a fresh one). */
  private drop(w: Worker): void {
    if (this.worker === w) this.worker = null;
    void w.terminate();
  }

  /** Runs one guard in the thread; rejects with {@link GuardBudgetExceeded} after terminating it on overrun. */
  run(id: string, module: string | undefined, paths: string[], budgetMs: number): Promise<GuardWorkResult> {
    const w = this.acquire();
    const seq = ++this.seq;
    return new Promise<GuardWorkResult>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
        const left = (this.running.get(w) ?? 1) - 1;
        this.running.set(w, left);
        if (left === 0) w.unref();
      };
      const onMessage = (msg: GuardDone | GuardFailed | GuardStarted) => {
        if (msg.seq !== seq) return;
        if (msg.type === 'started') {
          clearTimeout(timer);
          timer = setTimeout(() => stop(new GuardBudgetExceeded(budgetMs)), budgetMs);
          return;
        }
        cleanup();
        if (msg.type === 'done')
          resolve({
            findings: msg.findings,
            errors: msg.errors,
            ...(msg.skipped !== undefined ? { skipped: msg.skipped } : {}),
            sections: msg.sections,
          });
        else reject(new Error(msg.message));
      };
      const onError = (err: Error) => {
        cleanup();
        this.drop(w);
        reject(err);
      };
      const onExit = (code: number) => {
        cleanup();
        if (this.worker === w) this.worker = null;
        // Stopped for another guard's overrun: this one starts over in a fresh thread.
        if (this.stopped.has(w)) this.run(id, module, paths, budgetMs).then(resolve, reject);
        else reject(new Error(`the guard thread exited with code ${code}`));
      };
      const stop = (err: Error) => {
        cleanup();
        this.stopped.add(w);
        this.drop(w);
        reject(err);
      };
      let timer = setTimeout(() => stop(new Error(`the guard thread did not start within ${STARTUP_MS / 1000} s`)), STARTUP_MS);
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
      // Referenced while a guard runs: the process waits for the answer.
      this.running.set(w, (this.running.get(w) ?? 0) + 1);
      w.ref();
      w.postMessage({ type: 'guard', seq, id, ...(module ? { module } : {}), paths, budgetMs } satisfies RunGuard);
    });
  }

  /** Returns the thread to the idle pool (its run state dropped). */
  close(): void {
    const w = this.worker;
    this.worker = null;
    if (!w) return;
    w.postMessage({ type: 'end' });
    if (idle.length < MAX_IDLE) idle.push(w);
    else void w.terminate();
  }
}
