import type { Finding } from '../../core/finding.js';
import type { Store } from '../../store/store.js';
import { codeBlock, codeSpan, escapeInlineParagraph, escapeMarkdown, inertText } from '../../report/markdown-escape.js';
import { CHECK_NAME, type RepoTarget } from '../../host/check-outcome.js';
import type { GitHubClient } from './check-run.js';

/**
 * The reply to `/slopgate explain <id>`: everything the last run knew about the finding. Path,
 * message, remediation, evidence and suggestion come from the PR: each is escaped for where it lands
 * (code spans and blocks for code, inert Markdown for text), so none can mention, link or plant a marker.
 */
export function explainFinding(f: Finding, headSha: string): string {
  const place = f.path
    ? `${codeSpan(f.path)}${f.line ? ` line ${f.line}${f.endLine && f.endLine > f.line ? `–${f.endLine}` : ''}` : ''}`
    : 'the whole change';
  const id = f.id.replace(/[^0-9a-zA-Z]/g, '');
  const lines = [
    `**Finding \`${id}\`** (${escapeMarkdown(f.guard)} · ${codeSpan(f.category)} · ${escapeMarkdown(f.severity)}) at ${place}, from the run on \`${headSha.slice(0, 7).replace(/[^0-9a-f]/g, '')}\`:`,
    '',
    escapeInlineParagraph(f.message),
    '',
    `**What to do:** ${escapeInlineParagraph(f.remediation)}`,
  ];
  if (f.commit) lines.push('', `Introduced by commit \`${f.commit.slice(0, 7).replace(/[^0-9a-f]/g, '')}\`.`);
  if (f.confirmedBy.length > 1) lines.push('', `Raised by: ${f.confirmedBy.map(escapeMarkdown).join(', ')}.`);
  if (f.suggestion)
    lines.push(
      '',
      `Known fix for lines ${f.suggestion.startLine}–${f.suggestion.endLine} of ${codeSpan(f.suggestion.path)}:`,
      '',
      codeBlock(f.suggestion.replacement),
    );
  if (f.evidence && Object.keys(f.evidence).length)
    lines.push(
      '',
      '<details><summary>Evidence</summary>',
      '',
      codeBlock(JSON.stringify(f.evidence, null, 2).slice(0, 20_000)),
      '',
      '</details>',
    );
  return lines.join('\n');
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
    // The block is the check run's Markdown, escaped when it was rendered; made inert once more all the same.
    if (block) return `From the slopgate check run on \`${headSha.slice(0, 7)}\`:\n\n${inertText(block)}`;
  }
  return null;
}
