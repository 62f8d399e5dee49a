import picomatch from 'picomatch';
import type { SlopgateConfig } from './config-schema.js';
import { bucketOf } from './categories.js';
import { makeFinding, SEVERITY_RANK, type Dismissal, type Finding } from './finding.js';
import { markersFor } from './inline-ignore.js';
import { inlineCategoryRefusal } from './inline-policy.js';
import { findingDismissals, inlinePolicyAt } from './path-overrides.js';

/** A dismissal recorded earlier for this pull request (the host loads them from the store). */
export interface PriorDismissal extends Dismissal {
  /** The finding id (fingerprint) it was made for. */
  fingerprint: string;
  /** The dismissed finding's category and file, when recorded: to say that a dismissal lapsed. */
  category?: string;
  path?: string;
}

export interface DismissalInputs {
  config: SlopgateConfig;
  /** Earlier dismissals of this PR. Only `command` ones are carried; see {@link applyDismissals}. */
  prior?: readonly PriorDismissal[];
  /** The text of a file at the PR head, or null when it cannot be read as text. */
  readHead: (path: string) => Promise<string | null>;
  /** Who inline dismissals are attributed to (the PR author when the host knows it). */
  author?: string;
  now?: Date;
}

export const INLINE_MARKER_GUARD = 'slopgate-ignore';

/**
 * Marks dismissed findings (they stay in the report, with who, when and why) and returns the list,
 * plus a nit for each malformed `slopgate-ignore` marker next to a finding. Sources, first match wins:
 * 1. a `/slopgate dismiss` recorded for the same fingerprint (carried across pushes while it is unchanged);
 * 2. `ignore.findings` in the default-branch config (path glob + category);
 * 3. an inline `slopgate-ignore <category>: <reason>` comment on the flagged line or the line above, in
 *    the head tree, only for a category on INLINE_DISMISSIBLE of inline-policy.ts (nothing a maintainer alone may
 *    accept), when `ignore.inline` allows it and the severity is at most `ignore.inlineMaxSeverity`.
 * Inline and config dismissals are worked out again on every run from the current head and config, so
 * deleting the comment or the config entry brings the finding back; prior ones of those kinds are not
 * carried. Findings in the `stuck` bucket (the gate itself failed) can never be dismissed: an outage of
 * slopgate must not open the gate.
 */
export async function applyDismissals(findings: Finding[], inputs: DismissalInputs): Promise<Finding[]> {
  const at = (inputs.now ?? new Date()).toISOString();
  const commands = new Map<string, PriorDismissal>();
  for (const d of inputs.prior ?? []) if (d.source === 'command' && !commands.has(d.fingerprint)) commands.set(d.fingerprint, d);
  // The top level's ignore.findings and those of the path overrides.
  const rules = findingDismissals(inputs.config).map((r) => ({ ...r, matches: picomatch(r.paths, { dot: true }) }));
  const texts = new Map<string, Promise<string[] | null>>();
  const linesOf = (path: string) => {
    let p = texts.get(path);
    if (!p) {
      p = inputs.readHead(path).then(
        (t) => (t === null ? null : t.split(/\r?\n/)),
        () => null,
      );
      texts.set(path, p);
    }
    return p;
  };
  const extra = new Map<string, Finding>();

  for (const f of findings) {
    if (f.dismissed || bucketOf(f.category) === 'stuck') continue;
    const command = commands.get(f.id);
    if (command) {
      f.dismissed = { by: command.by, at: command.at, reason: command.reason, source: 'command' };
      continue;
    }
    const path = f.path;
    const rule = path ? rules.find((r) => r.category === f.category && r.matches(path)) : undefined;
    if (rule) {
      f.dismissed = { by: 'config (ignore.findings)', at, reason: rule.reason, source: 'config' };
      continue;
    }
    if (!f.path || !f.line || f.line < 1) continue;
    const lines = await linesOf(f.path);
    if (!lines) continue;
    for (const { line, marker } of markersFor(lines, f.line)) {
      if (!marker.ok) {
        const nit = malformedMarker(f.path, line, marker.problem);
        extra.set(nit.id, nit);
        continue;
      }
      if (marker.category !== f.category) continue;
      const refusal = inlineRefusal(f, inputs.config);
      if (refusal) {
        f.message = `${f.message}\n(${refusal})`;
      } else {
        f.dismissed = { by: inputs.author ?? 'the pull request (inline comment)', at, reason: marker.reason, source: 'inline' };
      }
      break;
    }
  }
  noteLapsed(findings, commands);
  const known = new Set(findings.map((f) => f.id));
  return [...findings, ...[...extra.values()].filter((f) => !known.has(f.id))];
}

/**
 * A `/slopgate dismiss` covers the finding it was given for (its id hashes the content). When that
 * finding is gone and one of the same category stands in the same file, the content changed since: the
 * finding says the old dismissal lapsed, so the maintainer knows a new decision is asked, not an oversight.
 */
function noteLapsed(findings: Finding[], commands: ReadonlyMap<string, PriorDismissal>): void {
  const used = new Set(findings.filter((f) => f.dismissed?.source === 'command').map((f) => f.id));
  for (const d of commands.values()) {
    if (used.has(d.fingerprint) || findings.some((f) => f.id === d.fingerprint) || !d.category) continue;
    const path = d.path?.toLowerCase();
    const heir = findings.find((f) => !f.dismissed && f.category === d.category && f.path?.toLowerCase() === path);
    if (!heir) continue;
    heir.message = `${heir.message}\n(The dismissal of \`${d.fingerprint}\` by ${d.by} on ${d.at.slice(0, 10)} lapsed: the finding changed since. A maintainer has to decide again.)`;
  }
}

/** Why an inline marker may not dismiss this finding, or undefined when it may. */
function inlineRefusal(f: Finding, config: SlopgateConfig): string | undefined {
  const { inline, inlineMaxSeverity } = inlinePolicyAt(config, f.path);
  const ask = `a maintainer can run \`/slopgate dismiss ${f.id} <reason>\``;
  // The list comes first: no config setting makes a maintainer-only finding dismissible by the PR itself.
  const notListed = inlineCategoryRefusal(f.category);
  if (notListed) return `${notListed}; ${ask}`;
  if (!inline) return `a slopgate-ignore comment asks to dismiss this, but inline dismissals are turned off (ignore.inline); ${ask}`;
  if (SEVERITY_RANK[f.severity] < SEVERITY_RANK[inlineMaxSeverity]) {
    return (
      `a slopgate-ignore comment asks to dismiss this ${f.severity} finding, but inline comments may dismiss only findings ` +
      `up to ${inlineMaxSeverity} (ignore.inlineMaxSeverity); ${ask}`
    );
  }
  return undefined;
}

function malformedMarker(path: string, line: number, problem: string): Finding {
  return makeFinding({
    guard: INLINE_MARKER_GUARD,
    category: 'comment-hygiene',
    severity: 'nit',
    path,
    line,
    message: `This slopgate-ignore comment dismisses nothing: ${problem}.`,
    remediation: 'Write `slopgate-ignore <category>: <reason>` on the flagged line or the line above it, or delete the comment.',
  });
}
