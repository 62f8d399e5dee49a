import { z } from 'zod';
import { isCategory, type Category } from '../core/categories.js';
import { errorMessage } from '../core/errors.js';
import type { Finding } from '../core/finding.js';
import { gitMaybe, zeroContextDiffArgs } from '../core/git.js';
import type { Report } from '../core/report.js';
import type { SincePushSection } from '../core/report-sections.js';
import { headShiftsFromDiff, sincePushSection, type HeadShifts } from '../core/since-push.js';
import type { Logger } from '../core/trace.js';
import type { Store } from '../store/store.js';
import type { GateTrigger } from './queued-job.js';

/**
 * The integration of "since the last push" (core/since-push.ts): the previous gated head of the PR
 * from the store, the diff of the two heads from the mirror, and the section for the report.
 */

/** Runs that gated the PR's own head. A CLI run, a refine candidate or another trigger is not a push of this PR. */
const PR_HEAD_TRIGGERS: ReadonlySet<string> = new Set<GateTrigger>(['pull_request', 'recheck', 'rerun', 'allow']);

/** How many stored runs of the PR are looked through for the previous head (re-runs of this head come first). */
const RUNS_LOOKED_AT = 50;

const storedFinding = z.object({
  id: z.string(),
  guard: z.string(),
  category: z.custom<Category>(isCategory),
  severity: z.enum(['fail', 'risk', 'nit']),
  path: z.string().optional(),
  line: z.number().int().optional(),
  message: z.string(),
  remediation: z.string(),
  cause: z.string().optional(),
  confirmedBy: z.array(z.string()).default([]),
  dismissed: z.object({ by: z.string(), at: z.string(), reason: z.string(), source: z.enum(['command', 'inline', 'config']) }).optional(),
});

/** The part of a stored report this reads: a report written by an older or newer slopgate may hold more. */
const storedReport = z.object({
  head: z.object({ sha: z.string() }),
  base: z.object({ sha: z.string() }),
  // Each finding on its own: one this version cannot read (a category it does not know) is left out, not the run.
  findings: z.array(z.unknown()),
  sections: z
    .object({
      sincePush: z.object({ stillOpen: z.array(z.object({ id: z.string(), was: z.array(z.string()) })) }).optional(),
    })
    .default({}),
});

export interface PreviousHead {
  headSha: string;
  /** The merge-base it was gated against. */
  mergeBase: string;
  findings: Finding[];
  section?: Pick<SincePushSection, 'stillOpen'>;
}

/**
 * The newest stored run of the PR that gated a head other than `headSha`: the previous push. Re-runs
 * of this head are skipped, so a recheck still compares with the push before it. A run whose report
 * cannot be read, or that is about another commit than its row says, is passed over.
 */
export async function previousGatedHead(store: Store, repo: string, pr: number, headSha: string): Promise<PreviousHead | null> {
  for (const run of await store.listRuns(repo, pr, RUNS_LOOKED_AT)) {
    if (run.headSha === headSha || run.status !== 'completed' || !PR_HEAD_TRIGGERS.has(run.trigger)) continue;
    const parsed = storedReport.safeParse(run.report);
    if (!parsed.success || parsed.data.head.sha !== run.headSha) continue;
    const { data } = parsed;
    return {
      headSha: run.headSha,
      mergeBase: data.base.sha,
      findings: data.findings.flatMap((raw) => {
        const f = storedFinding.safeParse(raw);
        if (!f.success) return [];
        const { dismissed, ...rest } = f.data;
        return [{ ...rest, ...(dismissed ? { dismissed } : {}) }];
      }),
      ...(data.sections.sincePush ? { section: data.sections.sincePush } : {}),
    };
  }
  return null;
}

/**
 * Git in the blobless mirror without reaching the remote: `protocol.allow=never` makes a lazy fetch of
 * a missing object fail at once, so a previous head that is gone reads as gone.
 */
const offline = (args: string[]) => ['-c', 'protocol.allow=never', ...args];

/** The diff of the two heads as line shifts; null when the previous head (or a blob of it) is not in the mirror. */
export async function headShifts(repoDir: string, from: string, to: string): Promise<HeadShifts | null> {
  const diff = await gitMaybe(repoDir, offline(zeroContextDiffArgs(from, to)));
  return diff === null ? null : headShiftsFromDiff(diff);
}

export interface SincePushRequest {
  store: Store | undefined;
  repo: string;
  pr: number;
  /** The mirror holding this head (and, normally, the previous one). */
  repoDir: string;
  report: Report;
  log: Logger;
}

/**
 * The "since the last push" section for a report, or undefined on the PR's first gated head, without a
 * store, or when the store cannot be read (logged: the report is complete without it).
 */
export async function sincePushFor(req: SincePushRequest): Promise<SincePushSection | undefined> {
  if (!req.store) return undefined;
  const { report } = req;
  try {
    const previous = await previousGatedHead(req.store, req.repo, req.pr, report.head.sha);
    if (!previous) return undefined;
    const present = (await gitMaybe(req.repoDir, offline(['cat-file', '-e', `${previous.headSha}^{commit}`]))) !== null;
    const descendant =
      present && (await gitMaybe(req.repoDir, offline(['merge-base', '--is-ancestor', previous.headSha, report.head.sha]))) !== null;
    return sincePushSection({
      previous,
      current: { mergeBase: report.base.sha, findings: report.findings, changedPaths: report.files.map((f) => f.path) },
      history: descendant ? 'descendant' : 'rewritten',
      shifts: present ? await headShifts(req.repoDir, previous.headSha, report.head.sha) : null,
    });
  } catch (err) {
    req.log.warn({ err: errorMessage(err) }, 'no comparison with the previous push: the stored runs could not be read');
    return undefined;
  }
}

/** The report with its "since the last push" section (unchanged when there is none). */
export function withSincePush(report: Report, section: SincePushSection | undefined): Report {
  return section ? { ...report, sections: { ...report.sections, sincePush: section } } : report;
}
