/**
 * Version 2: every refine attempt (a recipe's fix or one model reply), kept or reverted and why. G9
 * counts repeatedly reverted paths as failure history, and the report shows a PR's attempts.
 */
export const refineAttempts = `
CREATE TABLE refine_attempts (
  id bigserial PRIMARY KEY,
  repo text NOT NULL,
  pr integer,
  round integer NOT NULL,
  head_sha text NOT NULL,
  attempt integer NOT NULL,
  source text NOT NULL,
  outcome text NOT NULL,
  reason text,
  paths jsonb NOT NULL,
  targets jsonb NOT NULL,
  fixed jsonb NOT NULL,
  verdicts jsonb NOT NULL,
  prompt_tokens integer NOT NULL DEFAULT 0,
  completion_tokens integer NOT NULL DEFAULT 0,
  candidate_sha text,
  duration_ms integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refine_attempts_repo_pr ON refine_attempts (repo, pr, created_at DESC);
CREATE INDEX refine_attempts_reverts ON refine_attempts (repo, created_at) WHERE outcome = 'reverted';
`;
