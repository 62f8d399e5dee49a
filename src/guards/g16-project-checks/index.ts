import { inRanges } from '../../core/diff-hunks.js';
import { GuardSkip, type Guard, type GuardContext, type GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import type { ProjectCheckRecord } from '../../core/report-sections.js';
import type { Revision } from '../../core/revision.js';
import { DISCOVERY_FILES, discoverChecks, isWorkflowPath, type CheckTool, type DiscoveredCheck } from './discover.js';
import { fixCommand, formatText, type FormatterSpec } from './formatters.js';
import { lineSuggestion } from '../../core/line-suggestion.js';
import { changedLines } from './line-diff.js';
import { rustSettings } from './rust-settings.js';
import { G16_EVIDENCE, type G16FormatEvidence } from './evidence.js';

/** The files each check looks at. */
const FILES_OF: Record<CheckTool, RegExp> = {
  gofmt: /\.go$/,
  'go-vet': /\.go$/,
  rustfmt: /\.rs$/,
  'ruff-check': /\.pyi?$/,
  'ruff-format': /\.pyi?$/,
  black: /\.pyi?$/,
  eslint: /\.(?:[cm]?[jt]sx?|vue|svelte)$/,
  tsc: /\.(?:[cm]?tsx?|vue)$/,
  prettier: /\.(?:[cm]?[jt]sx?|vue|svelte|css|scss|less|json|jsonc|json5|md|mdx|ya?ml|html|graphql|gql)$/,
};

/** Vendored code and fixtures are never the project's to format. */
const EXCLUDED = /(?:^|\/)(?:vendor|testdata|third_party|node_modules)\//;

/** What the command the project runs looks like, to name it in a message. */
const SHOWN: Record<CheckTool, string> = {
  gofmt: 'gofmt -l',
  'go-vet': 'go vet',
  rustfmt: 'cargo fmt --check',
  'ruff-check': 'ruff check',
  'ruff-format': 'ruff format --check',
  black: 'black --check',
  prettier: 'prettier --check',
  eslint: 'eslint',
  tsc: 'tsc --noEmit',
};

const NOT_RUN = 'not run by this version';

/** Files one formatter checks per run (two formatter runs each); the rest are named as not checked. */
const MAX_FILES = 100;

const CONVENTION: DiscoveredCheck = { tool: 'gofmt', source: 'convention', line: '', enforced: false, inCi: false };

async function discoverFromBase(base: Revision): Promise<Map<CheckTool, DiscoveredCheck>> {
  const paths = await base.paths();
  const wanted = paths.filter((p) => isWorkflowPath(p) || DISCOVERY_FILES.includes(p));
  const texts = await base.readTexts(wanted);
  const files = new Map<string, string>();
  for (const p of wanted) {
    const t = texts.get(p);
    if (t !== undefined) files.set(p, t);
  }
  return discoverChecks(files);
}

const severityOf = (c: DiscoveredCheck): 'fail' | 'risk' => (c.inCi && c.enforced ? 'fail' : 'risk');

function sourceText(c: DiscoveredCheck): string {
  return c.source === 'convention' ? 'convention' : `${c.source}: ${c.line}`;
}

/** Why the finding weighs what it does, in the author's terms. */
function whyText(c: DiscoveredCheck): string {
  if (c.source === 'convention')
    return 'Go code is formatted with gofmt by convention, and this file was gofmt-clean before the pull request.';
  if (c.inCi && c.enforced) return `The repository's CI runs this check (${c.source}: \`${c.line}\`), so it will fail there.`;
  if (c.inCi) return `The repository's CI runs the formatter (${c.source}: \`${c.line}\`) without failing on its output.`;
  return `The project runs it locally (${c.source}: \`${c.line}\`), not in CI.`;
}

/** Line ranges as `12`, `12–14`, `3, 7–9` (at most five). */
function linesText(lines: number[]): string {
  const ranges: [number, number][] = [];
  for (const l of lines) {
    const last = ranges[ranges.length - 1];
    if (last && l === last[1] + 1) last[1] = l;
    else ranges.push([l, l]);
  }
  const shown = ranges.slice(0, 5).map(([a, b]) => (a === b ? String(a) : `${a}–${b}`));
  return shown.join(', ') + (ranges.length > 5 ? ', …' : '');
}

interface ToolRun {
  findings: GuardFinding[];
  record: ProjectCheckRecord;
}

async function specFor(
  tool: 'gofmt' | 'rustfmt',
  file: ChangedFile,
  ctx: GuardContext,
): Promise<FormatterSpec & { configPath: string | null }> {
  if (tool === 'gofmt') return { id: 'gofmt', configPath: null };
  const s = await rustSettings(ctx.base, file.path);
  return { id: 'rustfmt', edition: s.edition, config: s.config, configPath: s.configPath };
}

/** Runs gofmt or rustfmt on each file's base and head text; findings only where the PR made a clean file unclean. */
async function runFormatter(tool: 'gofmt' | 'rustfmt', check: DiscoveredCheck, files: ChangedFile[], ctx: GuardContext): Promise<ToolRun> {
  const severity = severityOf(check);
  const record: ProjectCheckRecord = { tool, source: sourceText(check), severity, status: 'ran', files: files.length };
  const findings: GuardFinding[] = [];
  const failed: string[] = [];
  let missing = false;
  for (const file of files.slice(0, MAX_FILES)) {
    if (ctx.signal.aborted) break;
    const head = file.head.text;
    if (head === null) continue;
    const spec = await specFor(tool, file, ctx);
    if (file.status !== 'added') {
      const base = file.base.text;
      if (base === null) continue; // unreadable at the base: its state there is unknown
      const before = await formatText(spec, base, ctx.signal);
      if (before.kind === 'tool-failed') {
        failed.push(`${file.path} (${before.cause})`);
        missing = before.missing === true;
        if (missing) break;
        continue;
      }
      // already unformatted (or unparsable) at the base: not what this PR introduced
      if (before.kind === 'unparsable' || before.text !== base) continue;
    }
    const after = await formatText(spec, head, ctx.signal);
    if (after.kind === 'tool-failed') {
      failed.push(`${file.path} (${after.cause})`);
      missing = after.missing === true;
      if (missing) break;
      continue;
    }
    if (after.kind === 'unparsable' || after.text === head) continue; // a parse error is G2's finding
    const lines = changedLines(head, after.text).filter((l) => inRanges(file.added, l));
    if (lines.length === 0) continue;
    const command = fixCommand(spec, file.path);
    const suggestion = lineSuggestion(file.path, head, after.text);
    const configNote = spec.configPath ? ` with the settings of ${spec.configPath}` : '';
    findings.push({
      category: 'lint-violation',
      severity,
      path: file.path,
      line: lines[0]!,
      ...(lines.length > 1 ? { endLine: lines[lines.length - 1]! } : {}),
      message: `\`${SHOWN[tool]}\` rejects ${file.path}: the pull request's line${lines.length === 1 ? '' : 's'} ${linesText(lines)} ${lines.length === 1 ? 'is' : 'are'} not formatted as ${tool} prints ${lines.length === 1 ? 'it' : 'them'}${configNote}. ${whyText(check)}`,
      remediation: `Run \`${command}\` and commit the result.`,
      ...(suggestion ? { suggestion } : {}),
      cause: tool,
      evidence: {
        tool,
        command,
        source: sourceText(check),
        ...(spec.edition ? { edition: spec.edition } : {}),
        ...(spec.configPath ? { config: spec.configPath } : {}),
      } satisfies G16FormatEvidence,
    });
  }
  if (files.length > MAX_FILES) record.reason = `checked the first ${MAX_FILES} of ${files.length} files; the others were not checked`;
  if (failed.length > 0) {
    const checked = Math.min(files.length, MAX_FILES) - failed.length;
    const reason = `could not check ${failed.slice(0, 3).join('; ')}${failed.length > 3 ? ` and ${failed.length - 3} more` : ''}`;
    if (checked <= 0 || missing) return { findings, record: { ...record, status: 'skipped', reason } };
    record.reason = record.reason ? `${record.reason}; ${reason}` : reason;
  }
  return { findings, record };
}

/**
 * G16: the format checks the repository itself enforces (CI workflows, pre-commit, package.json
 * scripts, Makefile, tox), run on the changed files at base and head. Only what the pull request
 * introduced counts: a file clean at the base (or new) that the tool rejects at the head, on lines
 * the pull request changed. gofmt and rustfmt run here (they only parse); the other tools are named
 * in the report as not run.
 */
export const g16: Guard = {
  id: 'G16',
  name: "project's own checks",
  evidence: G16_EVIDENCE,
  appliesTo: (file) =>
    file.status !== 'deleted' &&
    file.head.text !== null &&
    !EXCLUDED.test(file.path) &&
    Object.values(FILES_OF).some((re) => re.test(file.path)),
  // Two formatter runs per file: more than the static guards' default budget on a large pull request.
  budgetMs: (ctx) => Math.max(ctx.config.guards.timeoutMs, 120_000),
  async checkAll(files, ctx) {
    const discovered = await ctx.memo('g16:discover', () => discoverFromBase(ctx.base));
    const checks = new Map(discovered);
    if (!checks.has('gofmt')) checks.set('gofmt', CONVENTION);
    const findings: GuardFinding[] = [];
    const records: ProjectCheckRecord[] = [];
    for (const [tool, check] of checks) {
      const relevant = files.filter((f) => FILES_OF[tool].test(f.path));
      if (relevant.length === 0) continue;
      if (tool === 'gofmt' || tool === 'rustfmt') {
        const run = await runFormatter(tool, check, relevant, ctx);
        findings.push(...run.findings);
        records.push(run.record);
      } else {
        records.push({
          tool,
          source: sourceText(check),
          severity: severityOf(check),
          status: 'skipped',
          files: relevant.length,
          reason: NOT_RUN,
        });
      }
    }
    if (records.length > 0) ctx.section('checks', { checks: records });
    if (records.length > 0 && records.every((r) => r.status === 'skipped')) {
      throw new GuardSkip(records.map((r) => `${r.tool}: ${r.reason ?? NOT_RUN}`).join('; '));
    }
    return findings;
  },
};
