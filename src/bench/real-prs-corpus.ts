import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { git, gitMaybe } from '../core/git.js';

/** One merged pull request of the real-PR corpus: gate `base` → `head` as GitHub would. */
export interface CorpusPr {
  /** owner/name */
  repo: string;
  pr: number;
  /** First parent of the merge or squash commit (the target branch before the merge). */
  base: string;
  /** Squash merge: the merged commit; merge commit: its second parent (the PR branch tip). */
  head: string;
  language: string;
  /** How the PR landed. */
  kind: 'squash' | 'merge';
  /** Subject of the merged commit (for reading the corpus; not used by the runner). */
  title: string;
  /** Files changed between the merge-base and head. */
  files: number;
  /** Agent-written PRs (agent-prs-corpus.ts): the agent, and whether the PR was merged, reverted or never merged. */
  agent?: string;
  fate?: string;
  /** The PR author's login, when the corpus knows it (otherwise it is read from the head commit). */
  author?: string;
}

/** A corpus file entry; fields it carries beyond these are kept, so rewriting a corpus loses nothing. */
export const corpusPrSchema: z.ZodType<CorpusPr> = z.looseObject({
  repo: z.string(),
  pr: z.number(),
  base: z.string(),
  head: z.string(),
  language: z.string(),
  kind: z.enum(['squash', 'merge']),
  title: z.string(),
  files: z.number(),
  agent: z.string().optional(),
  fate: z.string().optional(),
  author: z.string().optional(),
});

export interface CorpusSkip {
  repo: string;
  pr: number;
  head: string;
  reason: string;
}

export interface CorpusRepo {
  repo: string;
  language: string;
}

export const corpusRepoSchema: z.ZodType<CorpusRepo> = z.object({ repo: z.string(), language: z.string() });

const SQUASH = /\(#(\d+)\)\s*$/;
const MERGE = /^Merge pull request #(\d+) from /;

/** Where the fetched mirror of `owner/name` lives under `root`, or null when it is not there. */
export function mirrorDir(root: string, repo: string): string | null {
  const base = join(root, repo.replace('/', '+'));
  for (const dir of [join(base, 'repo'), base]) {
    if (existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects'))) return dir;
    if (existsSync(join(dir, '.git'))) return dir;
  }
  return null;
}

/** Default root of fetched mirrors: SLOPGATE_MIRRORS, else /work/.mirror. */
export function mirrorRoot(): string {
  return process.env.SLOPGATE_MIRRORS ?? '/work/.mirror';
}

/** Reads the merged PRs of a mirror's default branch (first-parent history), newest first. */
export async function mergedPrs(
  dir: string,
  target: CorpusRepo,
  opts: { count: number; maxFiles: number; scan?: number },
): Promise<{ prs: CorpusPr[]; skipped: CorpusSkip[] }> {
  const scan = opts.scan ?? 2000;
  const log = await git(dir, ['log', '--first-parent', `-n${scan}`, '--format=%H%x00%P%x00%s', 'HEAD']);
  const prs: CorpusPr[] = [];
  const skipped: CorpusSkip[] = [];
  const seen = new Set<number>();
  for (const line of log.split('\n')) {
    if (prs.length >= opts.count) break;
    if (!line) continue;
    // cast: fixed-format line (we asked git/tooling for it): the fields are there
    const [sha, parentList, subject] = line.split('\0') as [string, string, string];
    const parents = parentList.split(' ').filter(Boolean);
    let pr: number | null = null;
    let base: string | undefined;
    let head: string | undefined;
    let kind: CorpusPr['kind'] = 'squash';
    const merge = MERGE.exec(subject);
    const squash = SQUASH.exec(subject);
    if (parents.length === 2 && merge) {
      pr = Number(merge[1]);
      base = parents[0];
      head = parents[1];
      kind = 'merge';
    } else if (parents.length === 1 && squash) {
      pr = Number(squash[1]);
      base = parents[0];
      head = sha;
    }
    if (pr === null || !base || !head || seen.has(pr)) continue;
    seen.add(pr);
    const files = await changedFileCount(dir, base, head);
    if (files === null) {
      skipped.push({ repo: target.repo, pr, head, reason: 'no merge-base between base and head' });
      continue;
    }
    if (files === 0) {
      skipped.push({ repo: target.repo, pr, head, reason: 'empty diff (already merged at base)' });
      continue;
    }
    if (files > opts.maxFiles) {
      skipped.push({ repo: target.repo, pr, head, reason: `${files} changed files (more than ${opts.maxFiles})` });
      continue;
    }
    if (!(await blobsReadable(dir, base, head))) {
      skipped.push({ repo: target.repo, pr, head, reason: 'the mirror lacks a blob of the diff (snapshots omit files of 4 MiB and more)' });
      continue;
    }
    prs.push({ repo: target.repo, pr, base, head, language: target.language, kind, title: subject, files });
  }
  return { prs, skipped };
}

async function changedFileCount(dir: string, base: string, head: string): Promise<number | null> {
  const mb = (await gitMaybe(dir, ['merge-base', base, head]))?.trim();
  if (!mb) return null;
  const out = await git(dir, ['diff', '--name-only', '--no-renames', '-z', mb, head]);
  return out.split('\0').filter(Boolean).length;
}

/** False when the mirror cannot read every blob of the diff (a partial snapshot), which the gate would report as a git error. */
async function blobsReadable(dir: string, base: string, head: string): Promise<boolean> {
  const mb = (await gitMaybe(dir, ['merge-base', base, head]))?.trim();
  return Boolean(mb && (await gitMaybe(dir, ['diff', '-M', '--numstat', mb, head])) !== null);
}
