import { writeFile } from 'node:fs/promises';
import { GITHUB_TOKEN_USER } from '../../workspace/git-auth.js';
import { resolve } from 'node:path';
import { exitCodeFor } from '../../routing/fail-level.js';
import { errorMessage, GateInfraError, InputError } from '../../core/errors.js';
import type { GateOptions } from '../../gate/run-gate.js';
import type { Report } from '../../core/report.js';
import { createLogger, type Logger } from '../../core/trace.js';
import { GUARDS } from '../../guards/index.js';
import { jobKey, type PrJob } from '../../host/queued-job.js';
import { configSourceText, runPrJob } from '../../host/pr-job.js';
import type { ConfigSource, JobRun, PrJobDeps } from '../../host/pr-job-deps.js';
import { queuedPrNumber } from '../../host/merge-queue.js';
import type { PullRequestFacts, ReviewHost } from '../../host/review-host.js';
import { inertText } from '../../report/markdown-escape.js';
import { renderReport } from '../../report/index.js';
import { actionCapabilities, actionOctokit, ActionsReviewHost } from './actions-review-host.js';
import { CheckoutWorkspace } from './checkout-workspace.js';
import { readMergeGroupEvent, readPullRequestEvent, runnerContext, type PullRequestEventFacts, type RunnerContext } from './event.js';
import { loadBaseConfig } from './base-config.js';
import type { FetchedHistory } from './fetch-history.js';
import { CONFIG_PATHS, ConfigError } from '../../config/load.js';
import { actionLabelSanctions } from './label-sanction.js';
import { readInputs, trustedInputs, type ActionInputs } from './inputs.js';
import { setOutputs } from './runner-files.js';
import { workflowCommand } from './workflow-commands.js';
import { workflowTrust, workflowTrustGuard } from './workflow-trust.js';

/**
 * Exit codes of the step: 0 the gate passes (at the fail level), 1 it does not, 2 the workflow or the
 * config is wrong, 3 slopgate itself could not finish (an outage: never a pass).
 */
export const EXIT = { pass: 0, blocked: 1, input: 2, outage: 3, notVerified: 4 } as const;

export interface ActionIo {
  env: NodeJS.ProcessEnv;
  /** One line of the step's log (stdout: the runner reads workflow commands there). */
  write: (line: string) => void;
  log?: Logger;
  /** The pipeline (injectable for tests). */
  gate?: (opts: GateOptions) => Promise<Report>;
}

/** What the step tells a reader when slopgate, not the code, failed. */
function outageLines(reason: string): string[] {
  return [
    workflowCommand(
      'error',
      { title: 'slopgate could not finish (not about your code)' },
      `slopgate failed before it could gate this pull request: ${reason}`,
    ),
    'This failure is not about your code: slopgate itself (or the GitHub API it talks to) failed. Re-run the job; ' +
      'the step fails until a run finishes, so an outage never lets a pull request through.',
  ];
}

/** The machine cannot run a check it must run (no sandbox for the tests): the step fails, and says what to do. */
function cannotGateLines(err: GateInfraError): string[] {
  const remedy =
    err.kind === 'sandbox'
      ? 'Prepare the runner before the slopgate step (sudo apt-get install -y bubblewrap && sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0), ' +
        'or gate without tests on purpose: tests: false in the workflow on the default branch, or tests.enabled: false in the config.'
      : 'Re-run the job.';
  return [
    workflowCommand(
      'error',
      { title: 'slopgate could not run the tests (not about your code)' },
      `not about your code: ${inertText(err.message)}`,
    ),
    `This failure is not about your code: ${err.message}. ${remedy} The step fails until the tests can run, so a change that breaks a test never passes because they could not.`,
  ];
}

/** The change an event asks the Action to gate: a pull request's head, or a merge queue's commit. */
interface ActionChange {
  job: PrJob;
  baseRef: string;
  baseSha: string;
  /** The `pull_request` event (label sanctions read it); absent for a merge queue. */
  event?: PullRequestEventFacts;
  fromFork: boolean;
}

async function changeOf(ctx: RunnerContext): Promise<ActionChange> {
  if (ctx.eventName === 'merge_group') {
    const group = await readMergeGroupEvent(ctx);
    const number = queuedPrNumber(group.headRef);
    return {
      job: { number, headSha: group.headSha, trigger: 'merge_group', key: `${ctx.owner}/${ctx.repo}@${group.headRef}`, mergeGroup: group },
      baseRef: group.baseRef,
      baseSha: group.baseSha,
      // The queue's branch lives in this repository, and its run gets this repository's token.
      fromFork: false,
    };
  }
  const event = await readPullRequestEvent(ctx);
  return {
    job: { number: event.number, headSha: event.headSha, trigger: 'pull_request', key: jobKey(ctx.owner, ctx.repo, event.number) },
    baseRef: event.baseRef,
    baseSha: event.baseSha,
    event,
    fromFork: event.fromFork,
  };
}

/**
 * Where the config and the trusted workflow are read. A pull request: its base commit. A merge queue's
 * commit: the tip of the queue's target branch, never the event's `base_sha` — for an entry behind
 * another that is the entry ahead's queue commit, which carries that PR's not yet merged edits, so a
 * PR queued behind its own earlier PR would gate under the config that PR wrote (the App reads the
 * default branch for the same reason). Without that tip the entry is not gated: a config error.
 */
function trustedCommit(
  history: FetchedHistory,
  change: ActionChange,
  configInput: string,
): { sha: string; mergeBase: string; where: string } {
  if (!change.job.mergeGroup)
    return { sha: history.baseSha, mergeBase: history.mergeBase, where: `the base commit ${history.baseSha.slice(0, 7)}` };
  if (!history.target) {
    throw new ConfigError(
      configInput || CONFIG_PATHS[0],
      undefined,
      undefined,
      `the tip of ${change.baseRef}, where a merge queue entry's config is read, is not in the checkout after fetching it`,
    );
  }
  const { tip, mergeBase } = history.target;
  return { sha: tip, mergeBase, where: `${change.baseRef} at ${tip.slice(0, 7)} (the merge queue's target branch)` };
}

/**
 * The GitHub Action: on `pull_request` (or a merge queue's `merge_group`), runs the one PR job
 * (host/pr-job.ts) over the workflow's checkout and token, then turns its result into the step's
 * outputs, SARIF file and exit code. What is the Action's own stays here: inputs, the workflow-trust
 * check on them, outputs, exit codes, workflow commands, and the read-only fallback of a fork's token.
 */
export async function runAction(io: ActionIo): Promise<number> {
  const { env, write } = io;
  // The runner's debug logging (re-run with debug, or ACTIONS_STEP_DEBUG) also turns slopgate's on.
  const log = io.log ?? createLogger({ level: env.RUNNER_DEBUG === '1' ? 'debug' : 'warn' });
  let inputs: ActionInputs;
  let ctx: RunnerContext;
  try {
    inputs = readInputs(env);
    ctx = runnerContext(env);
  } catch (err) {
    const hint = err instanceof InputError && err.hint ? ` (${err.hint})` : '';
    write(workflowCommand('error', { title: 'slopgate: workflow setup' }, errorMessage(err) + hint));
    return EXIT.input;
  }
  if (ctx.eventName === 'pull_request_target') {
    write(
      workflowCommand(
        'error',
        { title: 'slopgate: use on: pull_request' },
        'slopgate refuses pull_request_target: that event runs with a write token and secrets while slopgate ' +
          'reads (and its test gate runs) the code of the pull request. Trigger it with on: pull_request.',
      ),
    );
    return EXIT.input;
  }
  if (ctx.eventName !== 'pull_request' && ctx.eventName !== 'merge_group') {
    write(
      workflowCommand(
        'notice',
        { title: 'slopgate' },
        `nothing to gate: slopgate gates pull_request and merge_group events, this run is for ${ctx.eventName}`,
      ),
    );
    return EXIT.pass;
  }

  let run: JobRun;
  try {
    const change = await changeOf(ctx);
    const { job } = change;
    const host = new ActionsReviewHost(
      actionOctokit(inputs.token, ctx.apiUrl),
      { owner: ctx.owner, repo: ctx.repo },
      inputs.token,
      {
        ...(env.GITHUB_STEP_SUMMARY ? { summaryFile: env.GITHUB_STEP_SUMMARY } : {}),
        ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}),
        write,
      },
      actionCapabilities(change.fromFork),
    );
    if (change.fromFork)
      write(
        workflowCommand(
          'notice',
          { title: 'slopgate' },
          'a pull request from a fork: the token is read-only, so the verdict goes to this log and the job summary',
        ),
      );
    const workspace = new CheckoutWorkspace({
      dir: ctx.workspace,
      remoteUrl: `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}.git`,
      creds: { username: GITHUB_TOKEN_USER, token: inputs.token },
      number: job.number,
      baseRef: change.baseRef,
      baseSha: change.baseSha,
      headSha: job.headSha,
      ...(job.mergeGroup ? { headRef: job.mergeGroup.headRef } : {}),
    });
    const what = job.mergeGroup ? `the merge queue's commit for #${job.number}` : `pull request #${job.number}`;
    write(`slopgate: gating ${what} (${change.baseSha.slice(0, 7)}…${job.headSha.slice(0, 7)})`);

    // The workflow running this step is the PR's: when the PR changed it, its inputs are not used.
    const config: ConfigSource = {
      where: () => change.baseRef,
      load: async () => {
        const history = await workspace.history();
        const trusted = trustedCommit(history, change, inputs.config);
        const trust = await workflowTrust({
          env,
          dir: ctx.workspace,
          owner: ctx.owner,
          repo: ctx.repo,
          number: job.number,
          baseSha: trusted.sha,
          mergeBase: trusted.mergeBase,
          headSha: history.headSha,
          ...(job.mergeGroup ? { headRef: job.mergeGroup.headRef } : {}),
        });
        if (trust.untrusted) {
          inputs = trustedInputs(env, trust.baseInputs);
          write(
            workflowCommand(
              'warning',
              { title: 'slopgate: this PR changes its own gate' },
              `${inertText(trust.untrusted)}; this run uses the base branch's inputs`,
            ),
          );
        }
        const { config: loaded, file } = await loadBaseConfig(ctx.workspace, trusted.sha, inputs.config);
        if (inputs.strict) loaded.strict = true;
        if (inputs.commentBudget !== undefined) loaded.comments.budget = inputs.commentBudget;
        return {
          config: loaded,
          source: configSourceText(file, trusted.where),
          guards: [...GUARDS, workflowTrustGuard(trust)],
          ...(inputs.tests ? {} : { testRun: { enabled: false } }),
        };
      },
    };
    const event = change.event;
    const deps: PrJobDeps = {
      workspace,
      guards: GUARDS,
      config,
      // The Action keeps no record between runs: no round, store, dismissals or signed grants; its label rule instead.
      ...(event ? { sanctions: (h: ReviewHost, pr: PullRequestFacts) => actionLabelSanctions(h, event, pr) } : {}),
      // Each push runs its own workflow: the event's head is gated even when the PR has moved on.
      staleHead: 'gate',
      // The Q&A phase and the navigator are the App's: the Action has never read model settings.
      llm: false,
      refinerAvailable: false,
      resolveThreads: false,
      log,
      ...(io.gate ? { gate: io.gate } : {}),
    };
    run = await runPrJob(host, job, deps);
  } catch (err) {
    // Before the job (the event payload, the token): nothing was started, so nothing is left in progress.
    run = { result: 'infrastructure-error', error: err };
  }
  return finishStep(run, inputs, ctx, { ...io, log });
}

/** The step's outputs, files and exit code from what the job did. */
async function finishStep(run: JobRun, inputs: ActionInputs, ctx: RunnerContext, io: ActionIo & { log: Logger }): Promise<number> {
  const { env, write, log } = io;
  switch (run.result) {
    case 'skipped':
      await setOutputs(env.GITHUB_OUTPUT, { decision: 'SKIPPED', blocking: '0' });
      return EXIT.pass;
    case 'config-error':
      write(workflowCommand('error', { title: 'slopgate: config error' }, inertText(errorMessage(run.error))));
      return EXIT.input;
    case 'reported': {
      if (!run.report) return EXIT.pass;
      const report = run.report;
      if (inputs.sarifFile) {
        await writeFile(resolve(ctx.workspace, inputs.sarifFile), renderReport('sarif', report));
        write(`slopgate: SARIF written to ${inputs.sarifFile}`);
      }
      const { outcome, blocking } = report.decision;
      await setOutputs(env.GITHUB_OUTPUT, { decision: outcome, blocking: String(blocking) });
      const code = exitCodeFor(report, inputs.failLevel);
      write(
        `slopgate: ${outcome}, ${blocking} blocking, ${report.findings.length} finding(s); fail level ${inputs.failLevel} → exit ${code}`,
      );
      return code === 0 ? EXIT.pass : code === 1 ? EXIT.blocked : EXIT.notVerified;
    }
    // `superseded` only comes from a queue's abort, which the Action has not: were it to, it is no pass.
    case 'superseded':
    case 'infrastructure-error': {
      const err = run.error;
      const reason = inertText(errorMessage(err).split('\n')[0] ?? 'unknown error');
      if (err instanceof InputError) {
        const hint = err.hint ? ` (${err.hint})` : '';
        write(workflowCommand('error', { title: 'slopgate: workflow setup' }, reason + hint));
        return EXIT.input;
      }
      log.error({ err: reason }, 'action failed');
      for (const line of err instanceof GateInfraError ? cannotGateLines(err) : outageLines(reason)) write(line);
      return EXIT.outage;
    }
  }
}
