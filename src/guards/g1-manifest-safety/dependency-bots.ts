/**
 * Logins of the dependency-update bots whose pull requests only move dependency versions. Their
 * manifest and lockfile edits are the bot's whole job: G1 keeps them visible as a `nit` instead of a
 * `risk`. Logins ending in `[bot]` belong to GitHub Apps and cannot be taken by a person.
 */
const DEPENDENCY_BOTS = new Set(['dependabot[bot]', 'renovate[bot]', 'dependabot-preview[bot]']);

export function isDependencyBot(login: string | undefined): login is string {
  return login !== undefined && DEPENDENCY_BOTS.has(login.toLowerCase());
}
