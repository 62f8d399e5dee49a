import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';
import type { ChangedFile } from '../../core/patch-set.js';
import type { Guard, GuardContext, GuardFinding } from '../../core/guard.js';
import type { HistoryReader, Hotspot, RefineAttemptRecord, RunIdentity } from '../../core/ports.js';
import { refineSection } from '../../report/refine-section.js';

/** A file that failed the gate in several recent runs: the counts, the newest runs, and the window and threshold used. */
export const g9HotspotEvidence = z.object({
  runs: z.number(),
  failures: z.number(),
  guards: z.array(z.string()),
  categories: z.array(z.string()),
  lastRuns: z.array(z.object({ runId: z.string(), pr: z.number().nullable(), headSha: z.string(), at: z.string() })),
  lastFailedAt: z.string(),
  windowDays: z.number(),
  threshold: z.number(),
  /** The path the history knows, when the PR renamed the file. */
  historyPath: z.string().optional(),
});
export type G9HotspotEvidence = z.infer<typeof g9HotspotEvidence>;

/** Every evidence shape G9 writes. */
export const G9_EVIDENCE: readonly EvidenceSchema[] = [g9HotspotEvidence];

/**
 * The refine attempts to show with this run: the PR's latest ones; without a PR (the CLI), those made
 * on this head or on its parent (after `slopgate refine --apply`, the head's parent is what was refined).
 */
async function attemptsFor(ctx: GuardContext, run: RunIdentity): Promise<RefineAttemptRecord[]> {
  const reader = ctx.services.history;
  if (!reader?.listRefineAttempts) return [];
  if (run.pr !== undefined) return reader.listRefineAttempts(run.repo, run.pr, 10);
  const heads = new Set([ctx.patch.headSha, ctx.patch.commits.at(-2) ?? ctx.patch.baseSha]);
  return (await reader.listRefineAttempts(run.repo, null, 50)).filter((a) => heads.has(a.headSha)).slice(-10);
}

/**
 * G9 — failure history. A changed file that failed slopgate's guards in several separate runs of the
 * same repository recently is a hotspot: changes there keep going wrong, so a maintainer who knows the
 * file should look (the category routes to escalate). Needs the store (`ctx.services.history`) and
 * the repository being gated (`ctx.services.run`); without them the guard is skipped, never guessed.
 *
 * Differences from the original plan filter, on purpose: re-running the gate on the same commit is not
 * new evidence (runs per commit count once), the run being gated never counts itself, and by default
 * the PR's own earlier pushes do not count either (config `history.includeOwnPr`).
 */

/** The store and the repository being gated, or null when either is missing (the guard then skips). */
function historyPorts(ctx: GuardContext): { history: HistoryReader; run: RunIdentity } | null {
  const { history, run } = ctx.services;
  return history && run?.repo ? { history, run } : null;
}

function describeRun(r: Hotspot['lastRuns'][number]): string {
  return `${r.pr !== null ? `PR #${r.pr} at ` : ''}${r.headSha.slice(0, 7)} (${r.at.slice(0, 10)})`;
}

function hotspotFinding(file: ChangedFile, spot: Hotspot, windowDays: number, threshold: number): GuardFinding {
  const where = spot.path === file.path ? `\`${file.path}\`` : `\`${file.path}\` (as \`${spot.path}\` before this PR renamed it)`;
  const latest = spot.lastRuns.slice(0, 3).map(describeRun).join(', ');
  return {
    category: 'history-hotspot',
    severity: 'risk',
    path: file.path,
    message:
      `${where} failed slopgate's checks in ${spot.runs} separate runs of this repository in the last ${windowDays} day${windowDays === 1 ? '' : 's'} ` +
      `(${spot.failures} failing finding${spot.failures === 1 ? '' : 's'}: ${spot.categories.join(', ')} from ${spot.guards.join(', ')}; threshold ${threshold}). ` +
      `Most recent: ${latest}.`,
    remediation:
      'Changes to this file keep failing the gate; ask a maintainer who knows it to review this change, and check the recent failing runs for a pattern before editing it again.',
    evidence: {
      runs: spot.runs,
      failures: spot.failures,
      guards: spot.guards,
      categories: spot.categories,
      lastRuns: spot.lastRuns,
      lastFailedAt: spot.lastFailedAt,
      windowDays,
      threshold,
      ...(spot.path !== file.path ? { historyPath: spot.path } : {}),
    } satisfies G9HotspotEvidence,
  };
}

export const g9: Guard = {
  id: 'G9',
  name: 'Failure history',
  evidence: G9_EVIDENCE,
  // The store's history lives in this process, so with it G9 runs here (gate/thread-placement.ts).
  needs: { services: ['history', 'run'], config: ['history'] },
  appliesTo: (file) => file.status !== 'deleted',
  skipReason(ctx) {
    if (!ctx.services.history)
      return 'no store configured: G9 reads the history of earlier runs (set DATABASE_URL for the App, or --db DIR for the CLI)';
    if (!ctx.services.run?.repo) return 'the repository name is unknown, so there is no history to look up';
    return null;
  },
  async checkAll(files, ctx) {
    const ports = historyPorts(ctx);
    if (!ports) return []; // skipReason already reported why
    const { history, run } = ports;
    const { threshold, windowDays, includeOwnPr } = ctx.config.history;
    const lookup = new Set<string>();
    for (const f of files) {
      lookup.add(f.path);
      if (f.status === 'renamed' && f.oldPath) lookup.add(f.oldPath);
    }
    const spots = await history.hotspots(run.repo, [...lookup], windowDays, threshold, {
      headSha: ctx.patch.headSha,
      ...(run.runId ? { runId: run.runId } : {}),
      ...(!includeOwnPr && run.pr !== undefined ? { pr: run.pr } : {}),
    });
    const byPath = new Map(spots.map((s) => [s.path, s]));
    const findings: GuardFinding[] = [];
    for (const file of files) {
      const own = byPath.get(file.path);
      const old = file.status === 'renamed' && file.oldPath ? byPath.get(file.oldPath) : undefined;
      const spot = own && old ? (old.runs > own.runs ? old : own) : (own ?? old);
      if (spot) findings.push(hotspotFinding(file, spot, windowDays, threshold));
    }
    const section = refineSection(await attemptsFor(ctx, run).catch(() => []));
    if (section) ctx.section('refine', section);
    ctx.section('history', {
      windowDays,
      threshold,
      includeOwnPr,
      checked: files.length,
      hotspots: spots.map((s) => ({ path: s.path, runs: s.runs, failures: s.failures })),
    });
    return findings;
  },
};
