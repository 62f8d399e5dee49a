import type { Finding } from '../../core/finding.js';
import type { Store } from '../../store/store.js';
import { neutralizeComments } from '../../report/comment-escape.js';
import { CHECK_NAME, type RepoTarget } from '../../host/check-outcome.js';
import type { GitHubClient } from './check-run.js';

function fenced(text: string): string {
  let fence = '```';
  while (text.includes(fence)) fence += '`';
  return `${fence}\n${text}\n${fence}`;
}

/** The reply to `/slopgate explain <id>`: everything the last run knew about the finding. */
export function explainFinding(f: Finding, headSha: string): string {
  const place = f.path
    ? `\`${f.path}\`${f.line ? ` line ${f.line}${f.endLine && f.endLine > f.line ? `–${f.endLine}` : ''}` : ''}`
    : 'the whole change';
  const lines = [
    `**Finding \`${f.id}\`** (${f.guard} · \`${f.category}\` · ${f.severity}) at ${place}, from the run on \`${headSha.slice(0, 7)}\`:`,
    '',
    f.message,
    '',
    `**What to do:** ${f.remediation}`,
  ];
  if (f.commit) lines.push('', `Introduced by commit \`${f.commit.slice(0, 7)}\`.`);
  if (f.confirmedBy.length > 1) lines.push('', `Raised by: ${f.confirmedBy.join(', ')}.`);
  if (f.suggestion)
    lines.push(
      '',
      `Known fix for lines ${f.suggestion.startLine}–${f.suggestion.endLine} of \`${f.suggestion.path}\`:`,
      '',
      fenced(f.suggestion.replacement),
    );
  if (f.evidence && Object.keys(f.evidence).length)
    lines.push(
      '',
      '<details><summary>Evidence</summary>',
      '',
      fenced(JSON.stringify(f.evidence, null, 2).slice(0, 20_000)),
      '',
      '</details>',
    );
  // Path, message, evidence and suggestion come from the PR: none may plant a hidden marker.
  return neutralizeComments(lines.join('\n'));
}

/** Cuts the block of one finding out of a check run's text (the reporter marks each with its id). */
export function findingBlockInText(text: string, id: string): string | null {
  const at = text.indexOf(`finding \`${id}\``);
  if (at < 0) return null;
  const start = text.lastIndexOf('\n### ', at);
  const end = text.indexOf('\n', at);
  return text.slice(start < 0 ? 0 : start + 1, end < 0 ? undefined : end).trim();
}

/**
 * Finds a finding of the PR's most recent runs: in the store when there is one, else in the text of
 * the `slopgate` check run on the current head. Returns the reply text, or null when not found.
 */
export async function lookUpFinding(
  gh: GitHubClient,
  target: RepoTarget,
  pr: number,
  headSha: string,
  id: string,
  store?: Store,
): Promise<string | null> {
  if (store) {
    for (const run of await store.listRuns(`${target.owner}/${target.repo}`, pr, 10)) {
      const f = run.report?.findings.find((x) => x.id === id);
      if (f) return explainFinding(f, run.headSha);
    }
  }
  const runs = await gh.rest.checks.listForRef({ ...target, ref: headSha, check_name: CHECK_NAME, filter: 'latest', per_page: 10 });
  for (const run of runs.data.check_runs) {
    const block = findingBlockInText(run.output.text ?? '', id);
    if (block) return `From the slopgate check run on \`${headSha.slice(0, 7)}\`:\n\n${neutralizeComments(block)}`;
  }
  return null;
}
