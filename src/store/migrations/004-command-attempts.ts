/**
 * Version 4: the commands each user gave on each PR, for the per-user bound on answered commands (every
 * App process and worker counts in the same table). `command` is set once an attempt was answered: a
 * later identical one in the window is a repeat. Rows older than a day are pruned as new ones come.
 */
export const commandAttempts = `
CREATE TABLE command_attempts (
  id bigserial PRIMARY KEY,
  repo text NOT NULL,
  pr integer NOT NULL,
  login text NOT NULL,
  command text,
  at timestamptz NOT NULL
);
CREATE INDEX command_attempts_scope ON command_attempts (repo, pr, login, at);
CREATE INDEX command_attempts_at ON command_attempts (at);
`;
