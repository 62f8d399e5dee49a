import { git, gitMaybe } from '../core/git.js';
import type { CorpusPr } from './real-prs-corpus.js';

/**
 * Pull requests written by LLM agents, found in a mirror's `refs/pull/N/head` refs by the author of
 * the PR's tip commit, with what became of them: merged into the default branch, later reverted, or
 * never merged (closed, or still open; the mirror cannot tell which).
 */
/** One first-parent commit: `%H`, `%s`, `%b`, `%an %ae`, `%P`. */
type LogEntry = [sha: string, subject?: string, body?: string, author?: string, parents?: string];

export interface AgentPr extends CorpusPr {
  agent: string;
  fate: 'merged' | 'reverted' | 'unmerged';
  /** The commit on the default branch that merged it, or the revert commit naming it. */
  evidence?: string;
}

/** Tip-commit authors that are coding agents (not dependency bots, not humans with co-author trailers). */
export const AGENT_AUTHORS: { agent: string; pattern: RegExp }[] = [
  { agent: 'copilot-swe-agent', pattern: /^(copilot-swe-agent\[bot\]|Copilot) <198982749\+Copilot@users\.noreply\.github\.com>$/ },
  { agent: 'devin', pattern: /devin-ai-integration\[bot\]|^Devin AI </ },
  { agent: 'codex', pattern: /<codex@openai\.com>$/ },
  { agent: 'claude', pattern: /^Claude <noreply@anthropic\.com>$/ },
  { agent: 'sweep', pattern: /sweep-ai\[bot\]/ },
  { agent: 'jules', pattern: /google-labs-jules\[bot\]/ },
  { agent: 'codeflash', pattern: /codeflash-ai\[bot\]/ },
];

function agentOf(author: string): string | null {
  return AGENT_AUTHORS.find((a) => a.pattern.test(author))?.agent ?? null;
}

export async function agentPrs(dir: string, repo: string, language: string, opts: { maxFiles: number }): Promise<AgentPr[]> {
  const refs = await git(dir, ['for-each-ref', 'refs/pull/*/head', '--format=%(refname)%00%(objectname)%00%(authorname) %(authoremail)']);
  const found: { pr: number; head: string; agent: string }[] = [];
  for (const line of refs.split('\n')) {
    const [ref, head, author] = line.split('\0');
    if (!ref || !head || !author) continue;
    const agent = agentOf(author);
    const m = /^refs\/pull\/(\d+)\/head$/.exec(ref);
    if (agent && m) found.push({ pr: Number(m[1]), head, agent });
  }
  const mainLog = await git(dir, ['log', '--first-parent', '--format=%H%x00%s%x00%b%x00%an %ae%x00%P%x01', 'HEAD']);
  // A log entry may have fewer fields than asked for (an empty body at the end of the log): all but the sha are optional.
  const entries = mainLog.split('\x01').map((e) => e.trim().split('\0') as LogEntry);
  const out: AgentPr[] = [];
  // Squash merges on the default branch whose author, or a Co-authored-by trailer, is an agent and
  // whose PR ref tip is not an agent commit (the maintainer pushed last): merged agent PRs.
  const known = new Set(found.map((f) => f.pr));
  for (const [sha, subject, body, author, parents] of entries.slice(0, 3000)) {
    const m = /\(#(\d+)\)\s*$/.exec(subject ?? '');
    if (!m || !sha || !parents || parents.includes(' ')) continue;
    const pr = Number(m[1]);
    if (known.has(pr)) continue;
    const coAuthors = [...(body ?? '').matchAll(/^Co-authored-by:\s*(.+)$/gim)].map((c) => c[1]!.trim());
    const agent = [author ?? '', ...coAuthors]
      .map((a) => agentOf(a.replace(/^(.*) (\S+@\S+)$/, '$1 <$2>').replace(/<<(.*)>>/, '<$1>')))
      .find(Boolean);
    if (!agent) continue;
    known.add(pr);
    const files = (await git(dir, ['diff', '--name-only', '-z', parents, sha])).split('\0').filter(Boolean).length;
    if (files === 0 || files > opts.maxFiles) continue;
    if ((await gitMaybe(dir, ['diff', '-M', '--numstat', parents, sha])) === null) continue;
    const revert = entries.find(
      ([, s, b]) => /^Revert\b/i.test(s ?? '') && ((b ?? '').includes(sha) || new RegExp(`#${pr}\\b`).test(s ?? '')),
    );
    out.push({
      repo,
      pr,
      base: parents,
      head: sha,
      language,
      kind: 'squash',
      title: subject ?? '',
      files,
      agent,
      fate: revert ? 'reverted' : 'merged',
      evidence: revert ? `${revert[0].slice(0, 10)} ${revert[1]}` : `${sha.slice(0, 10)} ${subject}`,
    });
  }
  for (const f of found.sort((a, b) => b.pr - a.pr)) {
    const base = (await gitMaybe(dir, ['merge-base', 'HEAD', f.head]))?.trim();
    if (!base) continue;
    const files = (await git(dir, ['diff', '--name-only', '-z', base, f.head])).split('\0').filter(Boolean).length;
    if (files === 0 || files > opts.maxFiles) continue;
    if ((await gitMaybe(dir, ['diff', '-M', '--numstat', base, f.head])) === null) continue;
    const tag = `#${f.pr}`;
    const mergedBy = entries.find(([, s]) => s !== undefined && (s.endsWith(`(${tag})`) || s.startsWith(`Merge pull request ${tag} `)));
    const isAncestor = (await gitMaybe(dir, ['merge-base', '--is-ancestor', f.head, 'HEAD'])) !== null;
    const revert = entries.find(
      ([, s, b]) =>
        /^Revert\b/i.test(s ?? '') && (new RegExp(`${tag}\\b`).test(s ?? '') || (mergedBy && (b ?? '').includes(mergedBy[0].slice(0, 10)))),
    );
    const fate: AgentPr['fate'] = revert ? 'reverted' : mergedBy || isAncestor ? 'merged' : 'unmerged';
    const title = (await git(dir, ['log', '-1', '--format=%s', f.head])).trim();
    out.push({
      repo,
      pr: f.pr,
      base,
      head: f.head,
      language,
      kind: 'squash',
      title,
      files,
      agent: f.agent,
      fate,
      ...(revert
        ? { evidence: `${revert[0].slice(0, 10)} ${revert[1]}` }
        : mergedBy
          ? { evidence: `${mergedBy[0].slice(0, 10)} ${mergedBy[1]}` }
          : {}),
    });
  }
  return out.sort((a, b) => b.pr - a.pr);
}
