import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { GitHubStandIn } from '../../e2e/harness/github-standin.js';
import type { PullState } from '../../e2e/harness/github-state.js';
import { pullRequestPayload } from '../../e2e/harness/webhooks.js';

const ROOT = resolve(import.meta.dirname, '../../..');
/** The Action's entry: the built bundle when SLOPGATE_ACTION_ENTRY names it, else the TypeScript source under tsx. */
const ENTRY = process.env.SLOPGATE_ACTION_ENTRY ? resolve(process.env.SLOPGATE_ACTION_ENTRY) : join(ROOT, 'src/platforms/actions/main.ts');

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  summary: string;
  outputs: Record<string, string>;
  workspace: string;
}

/** What `actions/checkout` leaves for a `pull_request` run by default: the test-merge commit, fetch depth 1. */
export async function checkoutLikeActions(gh: GitHubStandIn, pull: PullState, token: string, ref?: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-action-ws-'));
  // Asynchronous: the stand-in answering the fetch runs in this process.
  const git = (...args: string[]) => promisify(execFile)('git', args, { cwd: dir });
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  await git('init', '-q');
  await git('remote', 'add', 'origin', `${gh.url}/${pull.repo.owner.login}/${pull.repo.name}.git`);
  // `pull_request` runs check out the test merge; a `merge_group` run checks out the queue's branch.
  const merge = ref ?? `refs/pull/${pull.number}/merge`;
  await git(
    '-c',
    `http.extraHeader=Authorization: basic ${basic}`,
    'fetch',
    '-q',
    '--no-tags',
    '--depth=1',
    'origin',
    `+${merge}:refs/remotes/pull/${pull.number}/merge`,
  );
  await git('checkout', '-q', '--detach', `refs/remotes/pull/${pull.number}/merge`);
  // persist-credentials (the default) leaves a header in .git/config. Here it carries a token the
  // stand-in never issued: were the Action to send it along with its own, the fetch would get a 401.
  const stale = Buffer.from('x-access-token:ghs_stale_checkout_token').toString('base64');
  await git('config', '--local', `http.${gh.url}/.extraheader`, `AUTHORIZATION: basic ${stale}`);
  return dir;
}

/** Parses GITHUB_OUTPUT's `name<<delimiter` blocks. */
export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([\w-]+)<<(\S+)$/.exec(lines[i]!);
    if (!m) continue;
    const end = lines.indexOf(m[2]!, i + 1);
    out[m[1]!] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return out;
}

export interface RunOptions {
  gh: GitHubStandIn;
  pull: PullState;
  token: string;
  inputs?: Record<string, string>;
  eventName?: string;
  /** A payload other than the PR's `pull_request.opened`. */
  payload?: unknown;
  /** The ref the checkout fetches instead of the PR's test merge (a merge queue's branch). */
  checkoutRef?: string;
  /** Called between the checkout and the Action's start (to break something). */
  afterCheckout?: () => void;
  /** More of the runner's environment (e.g. GITHUB_WORKFLOW_REF, or SLOPGATE_BWRAP to take the sandbox away). */
  env?: Record<string, string>;
}

/**
 * Runs the Action as a runner would: a child process with the runner's environment (GITHUB_* and
 * INPUT_* variables, the event payload on disk, the output and summary files) in a fresh checkout.
 */
export async function runActionProcess(o: RunOptions): Promise<ActionRun> {
  const tmp = mkdtempSync(join(tmpdir(), 'slopgate-action-runner-'));
  const workspace = await checkoutLikeActions(o.gh, o.pull, o.token, o.checkoutRef);
  o.afterCheckout?.();
  const eventPath = join(tmp, 'event.json');
  const payload = o.payload ?? pullRequestPayload(o.gh.state, o.pull, 'opened', { installationId: 1 });
  writeFileSync(eventPath, JSON.stringify(payload));
  const summary = join(tmp, 'summary.md');
  const output = join(tmp, 'output.txt');
  writeFileSync(summary, '');
  writeFileSync(output, '');
  const inputs = {
    config: '.github/slopgate.yml',
    'fail-level': 'fail',
    tests: 'false',
    strict: 'false',
    'comment-budget': '',
    'sarif-file': '',
    ...o.inputs,
  };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: o.eventName ?? 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: `${o.pull.repo.owner.login}/${o.pull.repo.name}`,
    GITHUB_SERVER_URL: o.gh.url,
    GITHUB_API_URL: `${o.gh.url}/api/v3`,
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_OUTPUT: output,
    GITHUB_RUN_ID: '987654',
    // Under pull_request the workflow is read from the PR's merge ref (what the runner sets).
    GITHUB_WORKFLOW_REF: `${o.pull.repo.owner.login}/${o.pull.repo.name}/.github/workflows/slopgate.yml@refs/pull/${o.pull.number}/merge`,
    GITHUB_JOB: 'gate',
    GITHUB_ACTION: 'slopgate',
    GITHUB_ACTION_REPOSITORY: 'slopgate-dev/slopgate',
    RUNNER_TEMP: tmp,
    'INPUT_GITHUB-TOKEN': o.token,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    ...o.env,
  };
  const args = ENTRY.endsWith('.ts') ? ['--import', 'tsx', ENTRY] : [ENTRY];
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      args,
      { cwd: ENTRY.endsWith('.ts') ? ROOT : workspace, env, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
  const run = { ...result, summary: readFileSync(summary, 'utf8'), outputs: parseOutputs(readFileSync(output, 'utf8')), workspace };
  // The runner's temp dir is read: nothing of it outlives the run (it used to pile up in /tmp).
  rmSync(tmp, { recursive: true, force: true });
  // The token never reaches the log, the summary or the outputs (nor its Basic-auth form).
  const basic = Buffer.from(`x-access-token:${o.token}`).toString('base64');
  for (const text of [run.stdout, run.stderr, run.summary, JSON.stringify(run.outputs)]) {
    if (text.includes(o.token) || text.includes(basic)) throw new Error("the token leaked into the step's output");
  }
  return run;
}
