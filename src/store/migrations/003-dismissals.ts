/**
 * Version 3: dismissed findings. One row per (repo, PR, fingerprint, source); dismissing again through
 * the same source replaces who, why and when. The fingerprint is the finding id, so a dismissal is
 * carried to a new head exactly while the finding keeps that id.
 */
export const dismissals = `
CREATE TABLE dismissals (
  id bigserial PRIMARY KEY,
  repo text NOT NULL,
  pr integer NOT NULL,
  fingerprint text NOT NULL,
  category text NOT NULL,
  path text,
  dismissed_by text NOT NULL,
  reason text NOT NULL,
  source text NOT NULL CHECK (source IN ('command', 'inline', 'config')),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (repo, pr, fingerprint, source)
);
CREATE INDEX dismissals_repo_pr ON dismissals (repo, pr);
`;
