/**
 * Version 5: what the operator's view needs beyond the runs. `flaky_flips`: every test that failed and
 * then passed on a re-run of the same commit, per repository and test id (the flaky memory: a test that
 * flipped on a base, or on enough different PRs, is known flaky). `jobs`: how each App job ended —
 * reported, skipped, superseded, or an outage — with the check run it completed, so that the dashboard
 * can list outages (they store no run) and link every PR to its check run.
 */
export const operatorView = `
CREATE TABLE flaky_flips (
  id bigserial PRIMARY KEY,
  repo text NOT NULL,
  test_id text NOT NULL,
  pr integer,
  on_base boolean NOT NULL DEFAULT false,
  run_id uuid REFERENCES runs (id) ON DELETE CASCADE,
  head_sha text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX flaky_flips_test ON flaky_flips (repo, test_id, created_at);
CREATE INDEX flaky_flips_created_at ON flaky_flips (created_at);

CREATE TABLE jobs (
  id bigserial PRIMARY KEY,
  installation_id bigint,
  account text,
  repo text NOT NULL,
  pr integer NOT NULL,
  head_sha text NOT NULL,
  trigger text NOT NULL,
  result text NOT NULL,
  outcome text,
  conclusion text,
  reason text,
  run_id uuid,
  check_run_id bigint,
  worker text,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL
);
CREATE INDEX jobs_repo_pr ON jobs (repo, pr, finished_at DESC);
CREATE INDEX jobs_finished_at ON jobs (finished_at);
`;
