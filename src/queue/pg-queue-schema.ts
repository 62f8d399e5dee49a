import { checkSchemaName } from '../store/db.js';

/**
 * slopgate's own bookkeeping next to pg-boss's tables, in the same schema:
 * - `slopgate_keys`: per coalescing key (PR), the sequence number and id of its newest job. A job
 *   whose sequence is below the key's is superseded.
 * - `slopgate_leases`: which worker runs which active job, and its last heartbeat. A lease without a
 *   heartbeat for `leaseSeconds` means the worker died; the job is failed so pg-boss retries it.
 */
export function queueTablesSql(schema: string): string {
  const s = checkSchemaName(schema);
  return `
    CREATE TABLE IF NOT EXISTS ${s}.slopgate_keys (
      key text PRIMARY KEY,
      seq bigint NOT NULL,
      job_id uuid,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE IF NOT EXISTS ${s}.slopgate_leases (
      job_id uuid PRIMARY KEY,
      worker_id text NOT NULL,
      heartbeat_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS slopgate_leases_worker ON ${s}.slopgate_leases (worker_id);
  `;
}

export function queueSql(schema: string) {
  const s = checkSchemaName(schema);
  return {
    lockSetup: `SELECT pg_advisory_xact_lock(hashtext('slopgate:queue-setup:${s}'))`,
    tryLockReaper: `SELECT pg_try_advisory_xact_lock(hashtext('slopgate:queue-reaper:${s}')) AS locked`,
    bumpKey: `INSERT INTO ${s}.slopgate_keys (key, seq) VALUES ($1, 1)
              ON CONFLICT (key) DO UPDATE SET seq = ${s}.slopgate_keys.seq + 1, updated_at = now()
              RETURNING seq::int AS seq`,
    setKeyJob: `UPDATE ${s}.slopgate_keys SET job_id = $2 WHERE key = $1`,
    latestForKeys: `SELECT key, seq::int AS seq, job_id::text AS job_id FROM ${s}.slopgate_keys WHERE key = ANY($1::text[])`,
    claim: `INSERT INTO ${s}.slopgate_leases (job_id, worker_id, heartbeat_at) VALUES ($1, $2, now())
            ON CONFLICT (job_id) DO UPDATE SET worker_id = EXCLUDED.worker_id, heartbeat_at = now()`,
    /** Renews this worker's leases on jobs that are still active; returns the ones it still holds. */
    heartbeat: `UPDATE ${s}.slopgate_leases l SET heartbeat_at = now()
                  FROM ${s}.job j
                 WHERE l.worker_id = $1 AND l.job_id = ANY($2::uuid[]) AND j.id = l.job_id AND j.state = 'active'
                RETURNING l.job_id::text AS job_id`,
    /** Locks this worker's lease before it completes or fails the job (see finish()). */
    lockOwnLease: `SELECT 1 FROM ${s}.slopgate_leases WHERE job_id = $1 AND worker_id = $2 FOR UPDATE`,
    dropLease: `DELETE FROM ${s}.slopgate_leases WHERE job_id = $1`,
    /** Leases whose worker stopped heartbeating; deleting them first keeps the lock order of finish(). */
    reapStaleLeases: `DELETE FROM ${s}.slopgate_leases WHERE heartbeat_at < now() - make_interval(secs => $1)
                      RETURNING job_id::text AS job_id, worker_id`,
    /** Active jobs of these queues with neither a live lease nor a recent start (crash between fetch and claim). */
    orphans: `SELECT j.id::text AS id, j.name FROM ${s}.job j
                WHERE j.name = ANY($1::text[]) AND j.state = 'active' AND j.started_on < now() - make_interval(secs => $2)
                  AND NOT EXISTS (SELECT 1 FROM ${s}.slopgate_leases l WHERE l.job_id = j.id)`,
    activeByIds: `SELECT id::text AS id, name FROM ${s}.job WHERE id = ANY($1::uuid[]) AND state = 'active'`,
    /** The queue's depth, its oldest waiting job and the workers with a live lease (the dashboard, /metrics). */
    stats: `SELECT count(*) FILTER (WHERE state IN ('created', 'retry'))::int AS pending,
                   count(*) FILTER (WHERE state = 'active')::int AS running,
                   min(created_on) FILTER (WHERE state IN ('created', 'retry')) AS oldest,
                   (SELECT count(DISTINCT worker_id)::int FROM ${s}.slopgate_leases) AS workers
              FROM ${s}.job WHERE name = $1`,
  };
}
