import { inRanges } from '../../core/diff-hunks.js';
import type { GuardFinding } from '../../core/guard.js';
import { lineSuggestion } from '../../core/line-suggestion.js';
import type { ChangedFile } from '../../core/patch-set.js';
import type { CheckTool, DiscoveredCheck } from './discover.js';
import { changedLines } from './line-diff.js';
import { toolWords } from '../shared/tool-words.js';
import type { G16FormatEvidence, G16ToolFormatEvidence } from './evidence.js';

export { toolWords };

/** What the command the project runs looks like, to name it in a message. */
export const SHOWN: Record<CheckTool, string> = {
  gofmt: 'gofmt -l',
  'go-vet': 'go vet',
  rustfmt: 'cargo fmt --check',
  'ruff-check': 'ruff check',
  'ruff-format': 'ruff format --check',
  black: 'black --check',
  prettier: 'prettier --check',
  eslint: 'eslint',
  tsc: 'tsc --noEmit',
  mypy: 'mypy',
  clippy: 'cargo clippy',
};

export const severityOf = (c: DiscoveredCheck): 'fail' | 'risk' => (c.inCi && c.enforced && !c.lenient ? 'fail' : 'risk');

export function sourceText(c: DiscoveredCheck): string {
  return c.source === 'convention' ? 'convention' : `${c.source}: ${c.line}`;
}

/** Why the finding weighs what it does, in the author's terms. */
export function whyText(c: DiscoveredCheck): string {
  if (c.source === 'convention')
    return 'Go code is formatted with gofmt by convention, and this file was gofmt-clean before the pull request.';
  if (c.inCi && c.lenient)
    return `The repository's CI runs this check (${c.source}: \`${c.line}\`), but ${c.lenient}, so a failure there does not fail the pull request's checks.`;
  if (c.inCi && c.enforced) return `The repository's CI runs this check (${c.source}: \`${c.line}\`), so it will fail there.`;
  if (c.inCi) return `The repository's CI runs the formatter (${c.source}: \`${c.line}\`) without failing on its output.`;
  return `The project runs it locally (${c.source}: \`${c.line}\`), not in CI.`;
}

/** Why a finding of a formatter release other than the project's is only a risk. */
function mismatchWhy(c: DiscoveredCheck, mismatch: string): string {
  const where = c.source === 'convention' ? '' : ` (${c.source}: \`${c.line}\`)`;
  return `The repository runs this check${where}, but ${mismatch}, so whether it fails there is not known.`;
}

/** Line ranges as `12`, `12–14`, `3, 7–9` (at most five). */
export function linesText(lines: number[]): string {
  const ranges: [number, number][] = [];
  for (const l of lines) {
    const last = ranges[ranges.length - 1];
    if (last && l === last[1] + 1) last[1] = l;
    else ranges.push([l, l]);
  }
  const shown = ranges.slice(0, 5).map(([a, b]) => (a === b ? String(a) : `${a}–${b}`));
  return shown.join(', ') + (ranges.length > 5 ? ', …' : '');
}

/**
 * The finding for a file a formatter rewrites on lines the pull request changed (null when its
 * changes are elsewhere), with the whole rewrite as the suggestion when it is one small block.
 */
export function formatterFinding(opts: {
  tool: G16FormatEvidence['tool'] | G16ToolFormatEvidence['tool'];
  check: DiscoveredCheck;
  file: ChangedFile;
  head: string;
  formatted: string;
  command: string;
  configNote?: string;
  /** The project's formatter release could not be run (tool-versions.ts): a risk, saying so. */
  mismatch?: string;
  evidence: { edition?: string; config?: string };
}): GuardFinding | null {
  const { tool, check, file, head, formatted } = opts;
  const lines = changedLines(head, formatted).filter((l) => inRanges(file.added, l));
  if (lines.length === 0) return null;
  const suggestion = lineSuggestion(file.path, head, formatted);
  const name = tool === 'ruff-format' ? 'ruff format' : tool;
  const one = lines.length === 1;
  return {
    category: 'lint-violation',
    severity: opts.mismatch ? 'risk' : severityOf(opts.check),
    path: file.path,
    line: lines[0]!,
    ...(one ? {} : { endLine: lines[lines.length - 1]! }),
    message: `\`${SHOWN[tool]}\` rejects ${file.path}: the pull request's line${one ? '' : 's'} ${linesText(lines)} ${one ? 'is' : 'are'} not formatted as ${name} prints ${one ? 'it' : 'them'}${opts.configNote ?? ''}. ${opts.mismatch ? mismatchWhy(check, opts.mismatch) : whyText(check)}`,
    remediation: `Run \`${opts.command}\` and commit the result.`,
    ...(suggestion ? { suggestion } : {}),
    cause: tool,
    evidence: { tool, command: opts.command, source: sourceText(check), ...opts.evidence } satisfies
      G16FormatEvidence | G16ToolFormatEvidence,
  };
}
