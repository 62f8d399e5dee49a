import { bucketOf } from './categories.js';
import type { Finding } from './finding.js';

/**
 * `/slopgate dismiss <finding-id> <reason>`: the parsing and the checks that need no platform. The host
 * (App or Action) checks the commenter's write permission, finds the latest report, calls
 * {@link dismissTarget}, records the dismissal in the store (source `command`) and re-gates.
 */
export type DismissCommand = { ok: true; findingId: string; reason: string } | { ok: false; problem: string };

const PREFIX = /^\/slopgate\s+dismiss(?:\s+|$)/i;
const FINDING_ID = /^[0-9a-f]{12}$/;
export const MAX_DISMISS_REASON = 500;
const USAGE = 'write `/slopgate dismiss <finding-id> <reason>`, e.g. `/slopgate dismiss 3f2a9c1b7d0e the old API is removed on purpose`';

/**
 * Parses the first `/slopgate dismiss` line of a comment (outside quotes and code fences). Returns
 * undefined when the comment holds none. The reason is the rest of that line and is required.
 */
export function parseDismissCommand(body: string | null | undefined): DismissCommand | undefined {
  let inFence = false;
  for (const raw of (body ?? '').split(/\r?\n/)) {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence || line.startsWith('>') || !PREFIX.test(line)) continue;
    return parseArgs(line.replace(PREFIX, ''));
  }
  return undefined;
}

function parseArgs(rest: string): DismissCommand {
  const [first = '', ...words] = rest.trim().split(/\s+/);
  const id = first.replace(/^`|`$/g, '').toLowerCase();
  if (!id) return { ok: false, problem: `the finding id is missing; ${USAGE}` };
  if (!FINDING_ID.test(id)) {
    const shown = id.slice(0, 40).replace(/`/g, '');
    return { ok: false, problem: `\`${shown}\` is not a finding id (12 hex digits, shown with each finding); ${USAGE}` };
  }
  const reason = words
    .join(' ')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  if (!reason) return { ok: false, problem: `a reason is required; ${USAGE}` };
  if (reason.length > MAX_DISMISS_REASON) return { ok: false, problem: `the reason is longer than ${MAX_DISMISS_REASON} characters` };
  return { ok: true, findingId: id, reason };
}

export type DismissTarget<F = Finding> = { ok: true; finding: F } | { ok: false; problem: string };

/**
 * The finding the command names in the latest report, or why it cannot be dismissed. Takes whole
 * findings or just their id and category (what a check run's text tells about a finding).
 */
export function dismissTarget<F extends Pick<Finding, 'id' | 'category'>>(findings: readonly F[], findingId: string): DismissTarget<F> {
  const finding = findings.find((f) => f.id === findingId);
  if (!finding) return { ok: false, problem: `no finding \`${findingId}\` in the latest report of this pull request` };
  if (bucketOf(finding.category) === 'stuck') {
    const problem =
      `\`${findingId}\` says the gate itself could not finish (${finding.category}); ` + 'it cannot be dismissed, re-run the check instead';
    return { ok: false, problem };
  }
  return { ok: true, finding };
}
