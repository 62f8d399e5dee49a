import type { Report } from '../core/report.js';
import { llmGateOptions } from '../gate/llm-stage-options.js';
import { runGate } from '../gate/run-gate.js';
import { spliceBodySection } from './pr-body.js';
import type { JobToGate, PrJobDeps } from './pr-job-deps.js';
import { prGateOptions } from './prepare-pr.js';
import type { PrJob } from './queued-job.js';

/**
 * The pipeline run of a job's head, the same for a PR head and a merge queue's commit: the PR's gate
 * options (sanctions, round, dismissals, services), the guards and test options the host set for this
 * run, where the config came from, and the model stages unless the host has none.
 */
export async function gateHead<J extends PrJob>(head: JobToGate<J>): Promise<Report> {
  const { host, pr, settings, revisions, deps, log } = head;
  const config = settings.config;
  const jobDeps: PrJobDeps<J> = {
    ...deps,
    ...(settings.guards ? { guards: settings.guards } : {}),
    ...(settings.testRun ? { testRun: { ...deps.testRun, ...settings.testRun } } : {}),
  };
  return (deps.gate ?? runGate)({
    ...(await prGateOptions(host, pr, config, revisions, jobDeps, log)),
    ...(settings.source ? { configSource: settings.source } : {}),
    // The PR's title and body reach the Q&A roles and the navigator only inside their data block.
    // slopgate's own section of the body (the last verdict) is left out: the models see the author's text only.
    ...(deps.llm === false
      ? {}
      : llmGateOptions(config, { title: pr.title, body: spliceBodySection(pr.body, '').trim() }, false, deps.llm)),
  });
}
