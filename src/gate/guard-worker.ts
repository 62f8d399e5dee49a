import { parentPort, type MessagePort } from 'node:worker_threads';
import picomatch from 'picomatch';
import type { SlopgateConfig } from '../core/config-schema.js';
import { GuardSkip, type Guard, type GuardContext, type GuardFinding } from '../core/guard.js';
import type { GuardDone, GuardFailed, GuardStarted, InitRun, RunGuard } from './guard-messages.js';
import { guardErrorFinding } from './guard-runner.js';
import { servicesFor } from './guard-services.js';
import type { PatchSet } from '../core/patch-set.js';
import type { ReportSections } from '../core/report-sections.js';
import { Revision } from '../core/revision.js';
import { runMemo } from '../core/run-memo.js';
import { silentLogger, type TracePhase } from '../core/trace.js';

/**
 * The thread static guards run in. The pipeline sends one run's data (patch set, config, sanctions)
 * and then guards: one after another, and G17 beside them (it mostly waits on pyright); the thread
 * answers each request, by its number, with the guard's findings and report sections. A guard that
 * overruns its budget is stopped by terminating this thread (synchronous code — a catastrophic
 * regular expression, a parser stuck in a loop — cannot be interrupted any other way), and the
 * pipeline starts a fresh one (see guard-pool.ts for a guard that was in the thread with it).
 */

interface RunState {
  patch: PatchSet;
  byPath: Map<string, PatchSet['files'][number]>;
  config: SlopgateConfig;
  phase: TracePhase;
  base: Revision;
  head: Revision;
  sanctioned: (p: string) => boolean;
  memo: Map<string, Promise<unknown>>;
  services: GuardContext['services'];
}

let state: RunState | null = null;

/** The registry starts loading with the thread, while the pipeline is still reading the patch set. */
const registry = import('../guards/index.js');
registry.catch(() => undefined);

async function findGuard(id: string, module?: string): Promise<Guard> {
  // cast: I/O boundary: a module loaded at run time
  const exports = (module ? await import(module) : await registry) as Record<string, unknown>;
  // cast: I/O boundary: the registry module exports GUARDS
  const candidates: unknown[] = module ? Object.values(exports) : ((exports.GUARDS as Guard[] | undefined) ?? []);
  // cast: I/O boundary: checked by id before use
  const guard = candidates.find((g): g is Guard => Boolean(g) && typeof g === 'object' && (g as Guard).id === id);
  if (!guard) throw new Error(`guard ${id} not found in ${module ?? 'the guard registry'}`);
  return guard;
}

async function runGuard(msg: RunGuard, port: MessagePort): Promise<GuardDone> {
  if (!state) throw new Error('no run initialised');
  const s = state;
  const guard = await findGuard(msg.id, msg.module);
  // The budget counts from here: starting the thread and loading modules are not the guard's time.
  port.postMessage({ type: 'started', seq: msg.seq } satisfies GuardStarted);
  const sections: ReportSections = {};
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), msg.budgetMs);
  const ctx: GuardContext = {
    patch: s.patch,
    config: s.config,
    base: s.base,
    head: s.head,
    phase: s.phase,
    log: silentLogger,
    signal: controller.signal,
    sanctioned: s.sanctioned,
    memo: runMemo(s.memo),
    section: (name, value) => {
      sections[name] = value;
    },
    services: servicesFor(guard, s.services),
  };
  const files = msg.paths.map((p) => s.byPath.get(p)).filter((f): f is NonNullable<typeof f> => Boolean(f));
  const findings: GuardFinding[] = [];
  let errors = 0;
  try {
    if (guard.checkFile) {
      for (const file of files) {
        try {
          findings.push(...(await guard.checkFile(file, ctx)));
        } catch (err) {
          if (err instanceof GuardSkip) throw err;
          errors++;
          findings.push(guardErrorFinding(guard, err, file.path));
        }
      }
    }
    if (guard.checkAll) findings.push(...(await guard.checkAll(files, ctx)));
  } catch (err) {
    if (err instanceof GuardSkip) return { type: 'done', seq: msg.seq, findings, errors, skipped: err.reason, sections };
    errors++;
    findings.push(guardErrorFinding(guard, err));
  } finally {
    clearTimeout(timer);
  }
  return { type: 'done', seq: msg.seq, findings, errors, sections };
}

function init(msg: InitRun): void {
  const globs = msg.sanctions;
  const match = globs.length ? picomatch(globs, { dot: true }) : () => false;
  state = {
    patch: msg.patch,
    byPath: new Map(msg.patch.files.map((f) => [f.path, f])),
    config: msg.config,
    phase: msg.phase,
    base: new Revision(msg.patch.repoDir, msg.patch.baseSha, msg.maxBytes, msg.patch.baseTree),
    head: new Revision(msg.patch.repoDir, msg.patch.headSha, msg.maxBytes, msg.patch.headTree),
    sanctioned: (p) => match(p),
    memo: new Map(),
    services: {
      ...(msg.run ? { run: msg.run } : {}),
      ...(msg.repoName ? { repoName: msg.repoName } : {}),
      ...(msg.host ? { host: msg.host } : {}),
      ...(msg.tests ? { tests: msg.tests } : {}),
    },
  };
}

// Outside a worker thread there is no port and this module does nothing.
const port = parentPort;
if (port)
  port.on('message', (msg: InitRun | RunGuard | { type: 'end' }) => {
    if (msg.type === 'init') {
      init(msg);
      return;
    }
    if (msg.type === 'end') {
      state = null;
      return;
    }
    runGuard(msg, port).then(
      (done) => {
        try {
          port.postMessage(done);
        } catch (err) {
          // A finding that cannot be cloned (a function in its evidence) is the guard's bug.
          port.postMessage({
            type: 'failed',
            seq: msg.seq,
            message: `its findings could not be passed back (${err instanceof Error ? err.message : String(err)})`,
          } satisfies GuardFailed);
        }
      },
      (err: unknown) =>
        port.postMessage({ type: 'failed', seq: msg.seq, message: err instanceof Error ? err.message : String(err) } satisfies GuardFailed),
    );
  });
