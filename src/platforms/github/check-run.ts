import type { ProbotOctokit } from 'probot';
import { breakComments, inertText } from '../../report/markdown-escape.js';
import {
  ANNOTATIONS_PER_REQUEST,
  capText,
  CHECK_NAME,
  MAX_ANNOTATIONS,
  type CheckAnnotation,
  type CheckRunOutcome,
  type RepoTarget,
} from '../../host/check-outcome.js';

export type GitHubClient = ProbotOctokit;

/** Creates the `slopgate` check run `in_progress` on a commit; returns its id. */
export async function startCheckRun(gh: GitHubClient, target: RepoTarget, headSha: string, externalId: string): Promise<number> {
  const res = await gh.rest.checks.create({
    ...target,
    name: CHECK_NAME,
    head_sha: headSha,
    status: 'in_progress',
    external_id: externalId,
    started_at: new Date().toISOString(),
    output: { title: 'Gating this pull request…', summary: 'slopgate is checking the changes. This run updates when it is done.' },
  });
  return res.data.id;
}

/** Puts an existing check run back to `in_progress` with a new title and summary (a retried job). */
export async function reopenCheckRun(
  gh: GitHubClient,
  target: RepoTarget,
  checkRunId: number,
  output: { title: string; summary: string },
): Promise<void> {
  await gh.rest.checks.update({
    ...target,
    check_run_id: checkRunId,
    status: 'in_progress',
    output: { title: capText(inertText(output.title), 255), summary: capText(breakComments(output.summary)) },
  });
}

/**
 * Completes a check run. Annotations go out in chunks of 50: every chunk but the last is sent while
 * the run is still `in_progress`, the last one carries the conclusion, the text and the buttons.
 * Returns the number of update requests made.
 */
export async function finishCheckRun(gh: GitHubClient, target: RepoTarget, checkRunId: number, outcome: CheckRunOutcome): Promise<number> {
  const all = outcome.annotations ?? [];
  const annotations = all.slice(0, MAX_ANNOTATIONS);
  // A check run carries no marker of slopgate's own: every HTML comment delimiter in it came from the PR.
  // Summary and text are Markdown the renderers escaped; the title is plain text, made inert as a whole.
  let summary = breakComments(outcome.summary);
  if (all.length > annotations.length) {
    summary += `\n\n${all.length - annotations.length} more annotations were not attached (slopgate attaches at most ${MAX_ANNOTATIONS}).`;
  }
  const title = capText(inertText(outcome.title), 255);
  summary = capText(summary);
  const chunks: CheckAnnotation[][] = [];
  for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) chunks.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST));
  if (chunks.length === 0) chunks.push([]);
  let requests = 0;
  for (let i = 0; i < chunks.length; i++) {
    const last = i === chunks.length - 1;
    const output: { title: string; summary: string; text?: string; annotations?: CheckAnnotation[] } = { title, summary };
    if (chunks[i]!.length) output.annotations = chunks[i]!.map(capAnnotation);
    if (last && outcome.text) output.text = capText(breakComments(outcome.text));
    await gh.rest.checks.update({
      ...target,
      check_run_id: checkRunId,
      output,
      ...(last
        ? {
            status: 'completed' as const,
            conclusion: outcome.conclusion,
            completed_at: new Date().toISOString(),
            ...(outcome.actions?.length ? { actions: outcome.actions.slice(0, 3) } : {}),
          }
        : { status: 'in_progress' as const }),
    });
    requests++;
  }
  return requests;
}

function capAnnotation(a: CheckAnnotation): CheckAnnotation {
  const out: CheckAnnotation = { ...a, message: capText(inertText(a.message), 60_000) };
  if (a.title) out.title = capText(inertText(a.title), 255);
  if (a.raw_details) out.raw_details = capText(inertText(a.raw_details), 60_000);
  return out;
}
