import { dismissTarget } from '../core/dismiss-command.js';
import { errorMessage } from '../core/errors.js';
import type { Finding } from '../core/finding.js';
import type { Logger } from '../core/trace.js';
import { codeSpan, escapeInline } from '../report/markdown-escape.js';
import type { Store } from '../store/store.js';

/** What a dismissal needs to know about a finding: its id and category, and its file when known. */
export type DismissableFinding = Pick<Finding, 'id' | 'category'> & { path?: string };

/**
 * The findings of the latest report on `headSha` as the host's own record shows them (the App: the
 * text of the `slopgate` check run), for when the store holds no run of that head.
 */
export type HostFindings = (headSha: string, findingId: string) => Promise<DismissableFinding[]>;

export interface DismissRequest {
  /** `owner/name`. */
  repo: string;
  pr: number;
  /** The PR's current head: the dismissal is checked against the latest report of this commit. */
  headSha: string;
  /** Who asked (recorded as the dismisser). */
  sender: string;
  findingId: string;
  reason: string;
}

/** `ok`: recorded, re-gate the head. Either way `reply` is the Markdown answer to post. */
export interface DismissOutcome {
  ok: boolean;
  reply: string;
}

export const NO_STORE_FOR_DISMISS =
  'This slopgate installation keeps no store, so a dismissal cannot be recorded and would be forgotten on the next run. ' +
  'Nothing was dismissed. Ask the operator to configure a store (`DATABASE_URL` or the embedded one), or use ' +
  "`ignore.findings` in `.github/slopgate.yml` on the default branch, or (for style nits and the PR's own prose only) an inline " +
  '`slopgate-ignore <category>: <reason>` comment.';

/** The findings of the newest stored run of `headSha` on this PR, or null when none is stored. */
export async function storedFindings(store: Store, repo: string, pr: number, headSha: string): Promise<Finding[] | null> {
  const runs = await store.listRuns(repo, pr, 20);
  const run = runs.find((r) => r.headSha === headSha && r.report);
  return run?.report?.findings ?? null;
}

/**
 * Carries out `/slopgate dismiss` once the host has checked the sender's write permission: finds the
 * finding in the latest report of the PR's head (the store's run, else the host's record), refuses
 * unknown ids and findings that say the gate itself failed, and records the dismissal (source
 * `command`) for the finding's fingerprint. The caller reacts, replies, and re-gates when `ok`.
 */
export async function dismissByCommand(
  store: Store | undefined,
  req: DismissRequest,
  deps: { hostFindings?: HostFindings; log: Logger },
): Promise<DismissOutcome> {
  if (!store) return { ok: false, reply: NO_STORE_FOR_DISMISS };
  let findings: readonly DismissableFinding[] | null;
  try {
    findings = await storedFindings(store, req.repo, req.pr, req.headSha);
    if (!findings && deps.hostFindings) findings = await deps.hostFindings(req.headSha, req.findingId);
  } catch (err) {
    deps.log.error({ err: errorMessage(err) }, 'dismiss: the latest report could not be read');
    return { ok: false, reply: 'The latest report of this PR could not be read, so nothing was dismissed. Try again later.' };
  }
  const target = dismissTarget(findings ?? [], req.findingId);
  if (!target.ok) {
    const hint = 'Finding ids are shown next to each finding in the check run.';
    return { ok: false, reply: `Nothing was dismissed: ${target.problem} (head \`${req.headSha.slice(0, 7)}\`). ${hint}` };
  }
  const { finding } = target;
  try {
    await store.dismissFinding({
      repo: req.repo,
      pr: req.pr,
      fingerprint: finding.id,
      category: finding.category,
      ...(finding.path ? { path: finding.path } : {}),
      by: req.sender,
      reason: req.reason,
      source: 'command',
    });
  } catch (err) {
    deps.log.error({ err: errorMessage(err) }, 'dismiss: not recorded');
    return {
      ok: false,
      reply: 'The dismissal could not be recorded (the store did not answer), so nothing was dismissed. Try again later.',
    };
  }
  return { ok: true, reply: dismissedReply(req.sender, finding, req.reason) };
}

/** The answer to an accepted `/slopgate dismiss`: the finding, its place and the reason (escaped: PR and commenter text). */
export function dismissedReply(sender: string, finding: DismissableFinding, reason: string): string {
  const where = finding.path ? ` in ${codeSpan(finding.path)}` : '';
  return [
    `Dismissed by @${sender}: finding ${codeSpan(finding.id)} (${codeSpan(finding.category)}${where}).`,
    '',
    `Reason: ${escapeInline(reason)}`,
    '',
    'It stays in the report, marked as dismissed, and no longer counts for the decision while its fingerprint is unchanged. ' +
      'Re-gating the head now.',
  ].join('\n');
}
