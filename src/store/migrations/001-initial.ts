/** The first schema: every table the gate, the App and G9 need. */
export const initial = `
CREATE TABLE deliveries (
  id text PRIMARY KEY,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_received_at ON deliveries (received_at);

CREATE TABLE runs (
  id uuid PRIMARY KEY,
  repo text NOT NULL,
  pr integer,
  base_sha text NOT NULL,
  head_sha text NOT NULL,
  trigger text NOT NULL,
  status text NOT NULL,
  outcome text,
  conclusion text,
  round integer,
  report jsonb,
  started_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE INDEX runs_repo_pr ON runs (repo, pr, started_at DESC);

CREATE TABLE findings (
  run_id uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  finding_id text NOT NULL,
  guard text NOT NULL,
  category text NOT NULL,
  severity text NOT NULL,
  path text,
  line integer,
  message text NOT NULL,
  PRIMARY KEY (run_id, finding_id)
);
CREATE INDEX findings_category ON findings (category);

CREATE TABLE guard_failures (
  id bigserial PRIMARY KEY,
  repo text NOT NULL,
  path text NOT NULL,
  guard text NOT NULL,
  category text NOT NULL,
  run_id uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  pr integer,
  head_sha text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX guard_failures_history ON guard_failures (repo, path, created_at);
CREATE INDEX guard_failures_run ON guard_failures (run_id);

CREATE TABLE baselines (
  repo text NOT NULL,
  base_tree text NOT NULL,
  command text NOT NULL,
  lockfile_hash text NOT NULL,
  result jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (repo, base_tree, command, lockfile_hash)
);

CREATE TABLE decisions (
  id bigserial PRIMARY KEY,
  run_id uuid,
  repo text NOT NULL,
  pr integer,
  outcome text NOT NULL,
  reason text NOT NULL,
  round integer NOT NULL,
  record jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX decisions_created_at ON decisions (created_at);
CREATE INDEX decisions_repo_pr ON decisions (repo, pr);

CREATE TABLE rounds (
  repo text NOT NULL,
  pr integer NOT NULL,
  round integer NOT NULL DEFAULT 1,
  max_rounds_override integer,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (repo, pr)
);
`;
