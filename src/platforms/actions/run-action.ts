import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { exitCodeFor } from '../../routing/fail-level.js';
import { ConfigError } from '../../config/load.js';
import type { SlopgateConfig } from '../../core/config-schema.js';
import { errorMessage, GateInfraError, InputError } from '../../core/errors.js';
import { runGate, type GateOptions } from '../../gate/run-gate.js';
import type { Report } from '../../core/report.js';
import { createLogger, type Logger } from '../../core/trace.js';
import { GUARDS } from '../../guards/index.js';
import { configErrorOutcome, DEFAULT_INFRA_ERROR_MODE, externalIdFor, infrastructureOutcome } from '../../host/queued-job.js';
import { skipOutcome, skipReasonFor } from '../../host/pr-job.js';
import { failedJobOutcome } from '../../host/failed-job-outcome.js';
import { addedLines, publishReport } from '../../host/publish-report.js';
import { inertReport, inertText } from '../../report/markdown-escape.js';
import { renderReport } from '../../report/index.js';
import { actionCapabilities, actionOctokit, ActionsReviewHost } from './actions-review-host.js';
import { readPullRequestEvent, runnerContext } from './event.js';
import { fetchPrHistory } from './fetch-history.js';
import { loadBaseConfig } from './base-config.js';
import { actionLabelSanctions } from './label-sanction.js';
import { readInputs, trustedInputs, type ActionInputs } from './inputs.js';
import { setOutputs } from './runner-files.js';
import { workflowCommand } from './workflow-commands.js';
import { workflowTrust, workflowTrustGuard } from './workflow-trust.js';

/**
 * Exit codes of the step: 0 the gate passes (at the fail level), 1 it does not, 2 the workflow or the
 * config is wrong, 3 slopgate itself could not finish (an outage: never a pass).
 */
export const EXIT = { pass: 0, blocked: 1, input: 2, outage: 3 } as const;

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

/**
 * The GitHub Action: on `pull_request`, gates the PR's merge-base → head range in the checkout and
 * publishes through the host seam (check run or workflow annotations, review comments, PR-body
 * section, job summary), then exits with the code the decision and the fail level give.
 */
export async function runAction(io: ActionIo): Promise<number> {
  const { env, write } = io;
  // The runner's debug logging (re-run with debug, or ACTIONS_STEP_DEBUG) also turns slopgate's on.
  const log = io.log ?? createLogger({ level: env.RUNNER_DEBUG === '1' ? 'debug' : 'warn' });
  let inputs: ActionInputs;
  let ctx: ReturnType<typeof runnerContext>;
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
  if (ctx.eventName !== 'pull_request') {
    write(
      workflowCommand(
        'notice',
        { title: 'slopgate' },
        `nothing to gate: slopgate gates pull_request events, this run is for ${ctx.eventName}`,
      ),
    );
    return EXIT.pass;
  }

  const check = { started: false, id: ActionsReviewHost.NO_CHECK_RUN };
  let reviewHost: ActionsReviewHost | undefined;
  let config: SlopgateConfig | undefined;
  try {
    const event = await readPullRequestEvent(ctx);
    const gh = actionOctokit(inputs.token, ctx.apiUrl);
    reviewHost = new ActionsReviewHost(
      gh,
      { owner: ctx.owner, repo: ctx.repo },
      inputs.token,
      {
        ...(env.GITHUB_STEP_SUMMARY ? { summaryFile: env.GITHUB_STEP_SUMMARY } : {}),
        ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}),
        write,
      },
      actionCapabilities(event.fromFork),
    );
    if (event.fromFork)
      write(
        workflowCommand(
          'notice',
          { title: 'slopgate' },
          'a pull request from a fork: the token is read-only, so the verdict goes to this log and the job summary',
        ),
      );
    check.id = await reviewHost.startCheckRun(event.headSha, externalIdFor(event.number));
    check.started = true;
    write(`slopgate: gating pull request #${event.number} (${event.baseSha.slice(0, 7)}…${event.headSha.slice(0, 7)})`);

    const pr = await reviewHost.pullRequest(event.number);
    const closed = skipReasonFor(pr);
    if (closed) {
      await reviewHost.completeCheckRun(check.id, skipOutcome(closed));
      await setOutputs(env.GITHUB_OUTPUT, { decision: 'SKIPPED', blocking: '0' });
      return EXIT.pass;
    }
    const history = await fetchPrHistory({
      dir: ctx.workspace,
      remoteUrl: `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}.git`,
      creds: { token: inputs.token },
      number: event.number,
      baseRef: event.baseRef,
      baseSha: event.baseSha,
      headSha: event.headSha,
    });
    // The workflow running this step is the PR's: when the PR changed it, its inputs are not used.
    const trust = await workflowTrust({ env, dir: ctx.workspace, owner: ctx.owner, repo: ctx.repo, number: event.number, ...history });
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
    try {
      config = (await loadBaseConfig(ctx.workspace, history.baseSha, inputs.config)).config;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      await reviewHost.completeCheckRun(check.id, configErrorOutcome(err, event.baseRef));
      write(workflowCommand('error', { title: 'slopgate: config error' }, inertText(err.message)));
      return EXIT.input;
    }
    if (inputs.strict) config.strict = true;
    if (inputs.commentBudget !== undefined) config.comments.budget = inputs.commentBudget;
    const skip = skipReasonFor(pr, config);
    if (skip) {
      await reviewHost.completeCheckRun(check.id, skipOutcome(skip));
      await setOutputs(env.GITHUB_OUTPUT, { decision: 'SKIPPED', blocking: '0' });
      return EXIT.pass;
    }

    const fullName = `${ctx.owner}/${ctx.repo}`;
    const sanctions = await actionLabelSanctions(reviewHost, event, pr);
    const report = await (io.gate ?? runGate)({
      repoDir: ctx.workspace,
      base: history.baseSha,
      head: history.headSha,
      repoName: fullName,
      config,
      guards: [...GUARDS, workflowTrustGuard(trust)],
      sanctions: sanctions.globs,
      ...(sanctions.notes.length ? { sanctionNotes: sanctions.notes } : {}),
      round: 1,
      decide: { refinerEnabled: false },
      services: {
        run: { repo: fullName, pr: event.number, ...(pr.author ? { author: pr.author } : {}) },
        tests: inputs.tests ? { repo: fullName, prepared: { workspace: ctx.workspace } } : { enabled: false },
      },
      log,
    });
    const added = await addedLines(ctx.workspace, history.mergeBase, history.headSha);
    const safe = inertReport(report);
    await publishReport(reviewHost, {
      pullNumber: event.number,
      checkRunId: check.id,
      checkRunUrl: reviewHost.checkRunUrl(pr, check.id),
      report: safe,
      config,
      added,
      labels: pr.labels,
      refinerAvailable: false,
      resolveThreads: false,
      log,
    });
    if (inputs.sarifFile) {
      const file = resolve(ctx.workspace, inputs.sarifFile);
      await writeFile(file, renderReport('sarif', report));
      write(`slopgate: SARIF written to ${inputs.sarifFile}`);
    }
    const { outcome, blocking } = report.decision;
    await setOutputs(env.GITHUB_OUTPUT, { decision: outcome, blocking: String(blocking) });
    const code = exitCodeFor(report, inputs.failLevel);
    write(
      `slopgate: ${outcome}, ${blocking} blocking, ${report.findings.length} finding(s); fail level ${inputs.failLevel} → exit ${code}`,
    );
    return code === 0 ? EXIT.pass : EXIT.blocked;
  } catch (err) {
    const reason = inertText(errorMessage(err).split('\n')[0] ?? 'unknown error');
    if (err instanceof InputError) {
      const hint = err.hint ? ` (${err.hint})` : '';
      write(workflowCommand('error', { title: 'slopgate: workflow setup' }, reason + hint));
      await finishOutage(reviewHost, check, reason, config, log);
      return EXIT.input;
    }
    log.error({ err: reason }, 'action failed');
    for (const line of err instanceof GateInfraError ? cannotGateLines(err) : outageLines(reason)) write(line);
    await finishOutage(reviewHost, check, err instanceof GateInfraError ? err : reason, config, log);
    return EXIT.outage;
  }
}

/** Completes the check run (when there is one) as an infrastructure failure; best effort. */
async function finishOutage(
  reviewHost: ActionsReviewHost | undefined,
  check: { started: boolean; id: number },
  reason: string | GateInfraError,
  config: SlopgateConfig | undefined,
  log: Logger,
): Promise<void> {
  if (!reviewHost || !check.started) return;
  const mode = config?.onInfraError ?? DEFAULT_INFRA_ERROR_MODE;
  const outcome = typeof reason === 'string' ? infrastructureOutcome(reason, mode) : failedJobOutcome(reason, mode);
  await reviewHost
    .completeCheckRun(check.id, outcome)
    .catch((e: unknown) => log.error({ err: errorMessage(e) }, 'could not complete the check run'));
}
