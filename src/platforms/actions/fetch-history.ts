import { InputError } from '../../core/errors.js';
import { authEnv, runGit, type GitCredentials } from '../../workspace/git-auth.js';

/** Private refs the Action fetches the PR's two sides into (never a branch the checkout uses). */
export const ACTION_REFS = { base: 'refs/slopgate/action/base', head: 'refs/slopgate/action/head' } as const;

export interface HistoryRequest {
  /** The checkout (GITHUB_WORKSPACE). */
  dir: string;
  /** The base repository's git URL (`<server>/<owner>/<repo>.git`). */
  remoteUrl: string;
  creds: GitCredentials;
  number: number;
  baseRef: string;
  baseSha: string;
  headSha: string;
  /** The branch holding the head when it is not the PR's (a merge queue's `gh-readonly-queue/…`). */
  headRef?: string;
}

export interface FetchedHistory {
  baseSha: string;
  headSha: string;
  mergeBase: string;
  /** How many fetches it took (the first, then each deepening). */
  fetches: number;
  /**
   * A merge queue's target branch as fetched (`refs/heads/<baseRef>`, not the event's `base_sha`, which
   * for an entry behind another is that entry's queue commit) and its merge base with the head. Absent for
   * a pull request, or when the branch's tip is not in the checkout after the fetch.
   */
  target?: { tip: string; mergeBase: string };
}

/** Deepening steps for a shallow checkout; after the last one the history is fetched whole. */
const DEPTHS = [50, 200, 1000, 5000];

/**
 * The token's git environment, adapted to a checkout: actions/checkout leaves its own header in
 * .git/config as `http.<server>/.extraheader` (persist-credentials). Git prefers a URL-specific value
 * over the plain `http.extraHeader`, so ours is given under the same URL-specific key, after an empty
 * value that resets the list: the checkout's header is not sent, ours is the only one.
 */
export function fetchEnv(req: Pick<HistoryRequest, 'creds' | 'remoteUrl'>): Record<string, string> {
  const auth = authEnv(req.creds);
  const urlKey = `http.${new URL(req.remoteUrl).origin}/.extraheader`;
  const entries: [string, string][] = [[urlKey, '']];
  for (let i = 0; i < Number(auth.GIT_CONFIG_COUNT ?? 0); i++) {
    const key = auth[`GIT_CONFIG_KEY_${i}`] ?? '';
    entries.push([key.toLowerCase() === 'http.extraheader' ? urlKey : key, auth[`GIT_CONFIG_VALUE_${i}`] ?? '']);
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(auth)) if (!k.startsWith('GIT_CONFIG_')) env[k] = v;
  env.GIT_CONFIG_COUNT = String(entries.length);
  entries.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
}

async function git(req: HistoryRequest, args: string[]): Promise<string> {
  return runGit(req.dir, args, { creds: req.creds, remoteUrl: req.remoteUrl, env: fetchEnv(req) });
}

async function hasCommit(req: HistoryRequest, sha: string): Promise<boolean> {
  return git(req, ['cat-file', '-e', `${sha}^{commit}`]).then(
    () => true,
    () => false,
  );
}

async function mergeBaseOf(req: HistoryRequest, a: string, b: string): Promise<string | null> {
  try {
    return (await git(req, ['merge-base', a, b])).trim() || null;
  } catch {
    return null;
  }
}

/**
 * Brings the PR's base and head, and enough history to find their merge base, into the checkout.
 * `actions/checkout` fetches one commit (the test merge) by default; this fetches the base branch and
 * `refs/pull/N/head` of the BASE repository (fork PRs included: their commits are there too; for a merge
 * queue, the queue's branch instead) into
 * private refs, deepening step by step until the two meet, then unshallowing as a last resort. The
 * token goes to git only through the environment (workspace/git-auth.ts), never into .git/config.
 */
export async function fetchPrHistory(req: HistoryRequest): Promise<FetchedHistory> {
  const inside = await git(req, ['rev-parse', '--is-inside-work-tree']).catch(() => '');
  if (inside.trim() !== 'true') {
    throw new InputError(`${req.dir} is not a git checkout`, 'add actions/checkout (into the workspace root) before slopgate in the job');
  }
  const shallow = (await git(req, ['rev-parse', '--is-shallow-repository'])).trim() === 'true';
  const headSource = req.headRef ? `refs/heads/${req.headRef}` : `refs/pull/${req.number}/head`;
  const refspecs = [`+refs/heads/${req.baseRef}:${ACTION_REFS.base}`, `+${headSource}:${ACTION_REFS.head}`];
  const fetch = (depthArgs: string[], specs = refspecs) =>
    git(req, ['fetch', '--quiet', '--no-tags', '--no-recurse-submodules', '--no-write-fetch-head', ...depthArgs, req.remoteUrl, ...specs]);

  let fetches = 0;
  await fetch(shallow ? [`--depth=${DEPTHS[0]}`] : []);
  fetches++;
  // The event's commits: the branch or the PR may have moved on since; fetch them by id then.
  const missing: string[] = [];
  for (const sha of [req.baseSha, req.headSha]) if (!(await hasCommit(req, sha))) missing.push(sha);
  if (missing.length) {
    await fetch(shallow ? [`--depth=${DEPTHS[0]}`] : [], missing);
    fetches++;
    for (const sha of missing) {
      if (!(await hasCommit(req, sha))) throw new Error(`commit ${sha.slice(0, 12)} of the event could not be fetched from the repository`);
    }
  }
  // A merge queue's config and trusted workflow are read at its target branch's tip (see run-action.ts).
  const tip = req.headRef
    ? (await git(req, ['rev-parse', '--verify', '--quiet', `${ACTION_REFS.base}^{commit}`]).catch(() => '')).trim() || null
    : null;
  let mergeBase = await mergeBaseOf(req, req.baseSha, req.headSha);
  let tipBase = tip ? await mergeBaseOf(req, tip, req.headSha) : null;
  const steps = [...DEPTHS.slice(1).map((d) => [`--deepen=${d}`]), ['--unshallow']];
  for (const step of steps) {
    if ((mergeBase && (!tip || tipBase)) || (await git(req, ['rev-parse', '--is-shallow-repository'])).trim() !== 'true') break;
    await fetch(step, [...refspecs, req.baseSha, req.headSha]);
    fetches++;
    mergeBase = await mergeBaseOf(req, req.baseSha, req.headSha);
    if (tip) tipBase = await mergeBaseOf(req, tip, req.headSha);
  }
  if (!mergeBase) throw new Error(`base ${req.baseSha.slice(0, 12)} and head ${req.headSha.slice(0, 12)} share no history`);
  if (tip && !tipBase) throw new Error(`${req.baseRef} at ${tip.slice(0, 12)} and head ${req.headSha.slice(0, 12)} share no history`);
  return {
    baseSha: req.baseSha,
    headSha: req.headSha,
    mergeBase,
    fetches,
    ...(tip && tipBase ? { target: { tip, mergeBase: tipBase } } : {}),
  };
}
