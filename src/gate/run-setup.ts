import picomatch from 'picomatch';
import { defaultConfig } from '../core/config-schema.js';
import { suitesUnderway, type Guard, type GuardContext, type SuitesUnderway } from '../core/guard.js';
import { loadPatchSet, type ChangedFile } from '../core/patch-set.js';
import type { ReportSections } from '../core/report.js';
import { Revision } from '../core/revision.js';
import { runMemo } from '../core/run-memo.js';
import { silentLogger } from '../core/trace.js';
import type { GateOptions } from './gate-options.js';
import { servicesFor } from './guard-services.js';

/** What every guard of one run shares: the patch set, both trees, config, and the sections guards write. */
export interface GateRun extends Pick<GuardContext, 'patch' | 'config' | 'base' | 'head' | 'phase' | 'log' | 'memo' | 'services'> {
  suites: SuitesUnderway;
  /** Changed files outside `ignore.paths`. */
  files: ChangedFile[];
  /** Config allow-list plus the run's extra sanctions (labels, `/slopgate allow`). */
  sanctionGlobs: string[];
  sanctioned: (path: string) => boolean;
  sections: ReportSections;
}

/** Reads the patch set and prepares what the guards share. */
export async function setUpRun(opts: GateOptions): Promise<GateRun> {
  const config = opts.config ?? defaultConfig();
  const patch = await loadPatchSet(opts.repoDir, opts.base, opts.head, { maxTextBytes: config.limits.maxFileBytes });
  const ignored = config.ignore.paths.length ? picomatch(config.ignore.paths, { dot: true }) : () => false;
  const sanctionGlobs = [...config.manifests.allow, ...(opts.sanctions ?? [])];
  const sanctioned = sanctionGlobs.length ? picomatch(sanctionGlobs, { dot: true }) : () => false;
  return {
    patch,
    config,
    base: new Revision(opts.repoDir, patch.baseSha, config.limits.maxFileBytes, patch.baseTree),
    head: new Revision(opts.repoDir, patch.headSha, config.limits.maxFileBytes, patch.headTree),
    phase: opts.phase ?? 'pr',
    log: opts.log ?? silentLogger,
    files: patch.files.filter((f) => !ignored(f.path)),
    sanctionGlobs,
    sanctioned: (p) => sanctioned(p),
    memo: runMemo(),
    suites: suitesUnderway(),
    sections: {},
    services: opts.services ?? {},
  };
}

/** One guard's view of the run (the services its needs name); `signal` aborts when its budget runs out. */
export function guardContext(run: GateRun, signal: AbortSignal, guard: Guard): GuardContext {
  return {
    patch: run.patch,
    config: run.config,
    base: run.base,
    head: run.head,
    phase: run.phase,
    log: run.log,
    signal,
    sanctioned: run.sanctioned,
    memo: run.memo,
    suites: run.suites,
    section: (name, value) => {
      run.sections[name] = value;
    },
    services: servicesFor(guard, run.services),
  };
}
