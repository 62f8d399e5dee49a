import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/core/trace.js';
import { externalIdFor, jobKey, type QueuedPrJob } from '../../src/host/queued-job.js';
import type { PrJobDeps } from '../../src/host/pr-job-deps.js';
import type { CheckRunOutcome } from '../../src/host/check-outcome.js';
import { RepoMirrors } from '../../src/workspace/repo-mirror.js';
import { MirrorWorkspace } from '../../src/workspace/workspace-port.js';
import type { FileContent } from '../helpers/git-repo.js';
import { FakeRemote, removeFakeRemotes } from '../helpers/fake-remote.js';
import { markerGuard } from '../helpers/test-guards.js';
import { FakePlatform } from './fake-platform.js';

export const OWNER = 'acme';
export const REPO = 'widgets';
export const FULL = `${OWNER}/${REPO}`;
const scratch: string[] = [];

/** Removes the remotes and mirror directories of every {@link setupPr} (call in afterAll). */
export function cleanUpPrs(): void {
  removeFakeRemotes();
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
}

export interface PrSetup {
  host: FakePlatform;
  job: QueuedPrJob;
  deps: PrJobDeps;
  remote: FakeRemote;
}

/**
 * PR `number` on a local bare remote (base: README.md and src/app.js), an in-memory host whose PR
 * points at its head with the check run started, and job deps over a fresh mirror directory.
 */
export async function setupPr(
  prFiles: Record<string, FileContent>,
  opts: { number?: number; config?: string; deps?: Partial<PrJobDeps>; base?: Record<string, FileContent> } = {},
): Promise<PrSetup> {
  const n = opts.number ?? 7;
  const remote = FakeRemote.create(opts.base ?? { 'README.md': 'widgets\n', 'src/app.js': 'export const x = 1;\n' });
  const head = remote.pushPr(n, prFiles);
  const host = new FakePlatform({ owner: OWNER, repo: REPO }, { number: n, headSha: head, baseSha: remote.baseSha });
  if (opts.config !== undefined) host.files.set('main:.github/slopgate.yml', opts.config);
  const checkRunId = await host.startCheckRun(head, externalIdFor(n));
  const work = mkdtempSync(join(tmpdir(), 'slopgate-host-'));
  scratch.push(work);
  const deps: PrJobDeps = {
    workspace: new MirrorWorkspace(new RepoMirrors({ root: join(work, 'mirrors'), remoteUrl: () => remote.url }), join(work, 'jobs')),
    guards: [markerGuard],
    sanctionKey: Buffer.alloc(32, 7),
    refinerAvailable: false,
    resolveThreads: false,
    log: silentLogger,
    ...opts.deps,
  };
  const job: QueuedPrJob = {
    key: jobKey(OWNER, REPO, n),
    installationId: 1,
    owner: OWNER,
    repo: REPO,
    number: n,
    headSha: head,
    checkRunId,
    trigger: 'pull_request',
    deliveryId: 'delivery-1',
  };
  return { host, job, deps, remote };
}

/** A new job for the PR's current head (a recheck, or a push when `files` are given): its own check run. */
export async function nextJob(s: PrSetup, files?: Record<string, FileContent>): Promise<QueuedPrJob> {
  const head = files ? s.remote.pushPr(s.job.number, files) : s.host.pr.headSha;
  s.host.pr.headSha = head;
  const checkRunId = await s.host.startCheckRun(head, externalIdFor(s.job.number));
  const trigger = files ? 'pull_request' : 'recheck';
  return { ...s.job, headSha: head, checkRunId, trigger, deliveryId: `delivery-${checkRunId}` };
}

/** The single completion of a job's check run. */
export function completionOf(s: PrSetup, job: QueuedPrJob = s.job): CheckRunOutcome {
  const run = s.host.checkRuns.get(job.checkRunId)!;
  if (run.completions.length !== 1) throw new Error(`check run ${job.checkRunId} completed ${run.completions.length} times`);
  return run.completions[0]!;
}
