import type { Db } from './db.js';

/** How one App job ended, as the dashboard lists it. */
export interface JobEntry {
  installationId?: number;
  /** The installation's account (the owner of the repository). */
  account?: string;
  /** `owner/name`. */
  repo: string;
  pr: number;
  headSha: string;
  trigger: string;
  /** reported, skipped, superseded, config-error, infrastructure-error. */
  result: string;
  /** The decision's outcome when it reported. */
  outcome?: string;
  /** The check run's conclusion, as far as the job knows it. */
  conclusion?: string;
  reason?: string;
  runId?: string;
  checkRunId?: number;
  /** The machine that ran the job. */
  worker?: string;
  startedAt: Date;
  finishedAt?: Date;
}

export async function recordJob(db: Db, e: JobEntry): Promise<void> {
  await db.query(
    `INSERT INTO jobs (installation_id, account, repo, pr, head_sha, trigger, result, outcome, conclusion, reason, run_id,
                       check_run_id, worker, started_at, finished_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::uuid, $12, $13, $14, $15)`,
    [
      e.installationId ?? null,
      e.account ?? null,
      e.repo,
      e.pr,
      e.headSha,
      e.trigger,
      e.result,
      e.outcome ?? null,
      e.conclusion ?? null,
      e.reason?.slice(0, 2000) ?? null,
      e.runId ?? null,
      e.checkRunId ?? null,
      e.worker ?? null,
      e.startedAt,
      e.finishedAt ?? new Date(),
    ],
  );
}
