import picomatch from 'picomatch';
import { GuardSkip, type Guard, type GuardContext, type GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import type { ProjectCheckRecord } from '../../core/report-sections.js';
import type { Revision } from '../../core/revision.js';
import { DISCOVERY_FILES, discoverChecks, isWorkflowPath, type CheckTool, type DiscoveredCheck } from './discover.js';
import { fixCommand, formatText, type FormatterSpec } from './formatters.js';
import { formatterFinding, severityOf, sourceText, toolWords } from './finding-text.js';
import { rustSettings } from './rust-settings.js';
import { G16_EVIDENCE } from './evidence.js';
import { envUnavailable } from '../../testgate/index.js';
import { excludedByMypy, pythonRegex } from './mypy-options.js';
import { runSandboxedChecks, type SandboxedCheck, type ToolRun } from './sandboxed-checks.js';
import { formatterToolchain, pinFor } from './tool-versions.js';
import { MAX_BUILDS, runBuildChecks } from './build-check.js';
import type { SandboxedTool } from './tool-commands.js';

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
  mypy: /\.pyi?$/,
  clippy: /\.rs$/,
  prettier: /\.(?:[cm]?[jt]sx?|vue|svelte|css|scss|less|json|jsonc|json5|md|mdx|ya?ml|html|graphql|gql)$/,
};

/** Vendored code and fixtures are never the project's to format. */
const EXCLUDED = /(?:^|\/)(?:vendor|testdata|third_party|node_modules)\//;

/**
 * Files one formatter checks per run (two runs each on stdin, a few milliseconds apiece): every file of
 * any ordinary pull request; beyond it the rest are named and the check is `partial`, never a pass.
 */
const MAX_FILES = 2000;

/**
 * Whether a path is among those the project's command names (everything when it names none) and not
 * left out by mypy's `exclude`; a string when an `exclude` pattern cannot be read (the check is skipped).
 */
function scopeOf(check: DiscoveredCheck): ((path: string) => boolean) | string {
  const named = check.paths;
  const exclude: RegExp[] = [];
  for (const pattern of check.exclude ?? []) {
    const re = pythonRegex(pattern);
    if (!re)
      return `its exclude pattern ${toolWords(pattern, 80)} is not a regular expression slopgate can read, so which files it checks is unknown`;
    exclude.push(re);
  }
  const kept = (path: string) => exclude.length === 0 || !excludedByMypy(path, exclude);
  if (!named) return kept;
  const globs = named.filter((p) => /[*?[{]/.test(p));
  const plain = named.filter((p) => !globs.includes(p));
  const glob = globs.length ? picomatch(globs, { dot: true }) : () => false;
  return (path) => (glob(path) || plain.some((p) => path === p || path.startsWith(`${p}/`))) && kept(path);
}

const CONVENTION: DiscoveredCheck = { tool: 'gofmt', source: 'convention', line: '', enforced: false, inCi: false };

/** The base branch's name as a workflow's `github.ref` spells it after `refs/heads/` (undefined for a commit). */
function branchName(ref: string): string | undefined {
  if (/^[0-9a-f]{7,40}$/.test(ref) || ref.includes('~') || ref.includes('^')) return undefined;
  return ref.replace(/^refs\/heads\//, '').replace(/^(?:refs\/remotes\/)?origin\//, '');
}

async function discoverFromBase(base: Revision, baseRef: string): Promise<Map<CheckTool, DiscoveredCheck>> {
  const paths = await base.paths();
  const wanted = paths.filter((p) => isWorkflowPath(p) || DISCOVERY_FILES.includes(p));
  const texts = await base.readTexts(wanted);
  const files = new Map<string, string>();
  for (const p of wanted) {
    const t = texts.get(p);
    if (t !== undefined) files.set(p, t);
  }
  return discoverChecks(files, branchName(baseRef));
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
  // the project's pinned release when it can be had; otherwise the machine's, and a finding is only a risk
  const toolchain = await formatterToolchain(tool, await pinFor(tool, check, ctx.base));
  const mismatch = toolchain.mismatch;
  const severity = mismatch ? 'risk' : severityOf(check);
  const record: ProjectCheckRecord = { tool, source: sourceText(check), severity, status: 'ran', files: files.length };
  const findings: GuardFinding[] = [];
  const failed: string[] = [];
  let missing = false;
  for (const file of files.slice(0, MAX_FILES)) {
    if (ctx.signal.aborted) break;
    const head = file.head.text;
    if (head === null) continue;
    const spec = {
      ...(await specFor(tool, file, ctx)),
      ...(toolchain.rustupToolchain ? { rustupToolchain: toolchain.rustupToolchain } : {}),
      ...(toolchain.gofmtPath ? { gofmtPath: toolchain.gofmtPath } : {}),
    };
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
    const command = fixCommand(spec, file.path);
    const finding = formatterFinding({
      tool,
      check,
      file,
      head,
      formatted: after.text,
      command,
      ...(spec.configPath ? { configNote: ` with the settings of ${spec.configPath}` } : {}),
      ...(mismatch ? { mismatch } : {}),
      evidence: { ...(spec.edition ? { edition: spec.edition } : {}), ...(spec.configPath ? { config: spec.configPath } : {}) },
    });
    if (finding) findings.push(finding);
  }
  if (files.length > MAX_FILES) {
    record.status = 'partial';
    record.reason = `checked the first ${MAX_FILES} of ${files.length} files; the others were not checked`;
  }
  if (failed.length > 0) {
    const checked = Math.min(files.length, MAX_FILES) - failed.length;
    const reason = `could not check ${failed.slice(0, 3).join('; ')}${failed.length > 3 ? ` and ${failed.length - 3} more` : ''}`;
    if (checked <= 0 || missing) return { findings, record: { ...record, status: 'skipped', reason } };
    record.status = 'partial';
    record.reason = record.reason ? `${record.reason}; ${reason}` : reason;
  }
  if (mismatch) record.reason = record.reason ? `${mismatch}; ${record.reason}` : mismatch;
  return { findings, record };
}

/** The record of a check that ran, with its findings counted by severity (what the report shows for it). */
function withFound(record: ProjectCheckRecord, raised: GuardFinding[]): ProjectCheckRecord {
  if (record.status !== 'ran') return record;
  const found = { fail: 0, risk: 0, nit: 0 };
  for (const f of raised) found[f.severity]++;
  return { ...record, found };
}

/**
 * G16: the format checks the repository itself enforces (CI workflows, pre-commit, package.json
 * scripts, Makefile, tox), run on the changed files at base and head. Only what the pull request
 * introduced counts: a file clean at the base (or new) that the tool rejects at the head, on lines
 * the pull request changed. gofmt and rustfmt run here (they only parse); ruff, black, prettier,
 * eslint, tsc, go vet, mypy and clippy run in the sandbox with the dependencies G8 installs (sandboxed-checks.ts).
 */
export const g16: Guard = {
  id: 'G16',
  name: "project's own checks",
  evidence: G16_EVIDENCE,
  needs: {
    mainProcess: 'it drives the sandbox (its tree exports and tool runs) with the stages of the test options, after the suites start',
    services: ['tests'],
    config: ['tests'],
  },
  appliesTo: (file) =>
    file.status !== 'deleted' &&
    file.head.text !== null &&
    !EXCLUDED.test(file.path) &&
    Object.values(FILES_OF).some((re) => re.test(file.path)),
  // Two formatter runs per file: more than the static guards' default budget on a large pull request.
  // With the sandboxed tools: the dependency installs as G8 budgets them (base, head, one retry), and
  // each side's tool runs (nine at most: ruff check, ruff format, black and mypy; prettier, eslint and
  // tsc; go vet; clippy) and the project's builds (MAX_BUILDS, each at both sides) within tests.timeoutSec each.
  budgetMs: (ctx) => {
    const t = ctx.config.tests;
    const runs = 18 + 2 * MAX_BUILDS;
    const sandboxed = envUnavailable(ctx) ? 0 : 3 * Math.max(t.timeoutSec, 900) * 1000 + runs * t.timeoutSec * 1000;
    return Math.max(ctx.config.guards.timeoutMs, 120_000) + sandboxed;
  },
  async checkAll(files, ctx) {
    // Its discovery, tree exports and tool runs share this thread with G8, whose suites start first.
    await ctx.suites?.underway;
    const discovered = await ctx.memo('g16:discover', () => discoverFromBase(ctx.base, ctx.patch.baseRef));
    const checks = new Map(discovered);
    if (!checks.has('gofmt')) checks.set('gofmt', CONVENTION);
    const findings: GuardFinding[] = [];
    const records: ProjectCheckRecord[] = [];
    const sandboxed: SandboxedCheck[] = [];
    for (const [tool, check] of checks) {
      const inScope = scopeOf(check);
      if (typeof inScope === 'string') {
        const kind = files.filter((f) => FILES_OF[tool].test(f.path));
        if (kind.length > 0)
          records.push({
            tool,
            source: sourceText(check),
            severity: severityOf(check),
            status: 'skipped',
            files: kind.length,
            reason: inScope,
          });
        continue;
      }
      const relevant = files.filter((f) => FILES_OF[tool].test(f.path) && inScope(f.path));
      if (relevant.length === 0) continue;
      if (tool === 'gofmt' || tool === 'rustfmt') {
        const end = ctx.services.tests?.stage?.(tool);
        const run = await runFormatter(tool, check, relevant, ctx).finally(() => end?.());
        findings.push(...run.findings);
        records.push(withFound(run.record, run.findings));
      } else sandboxed.push({ tool, check, files: relevant });
    }
    const ran = sandboxed.length ? await runSandboxedChecks(sandboxed, ctx) : new Map<SandboxedTool, ToolRun>();
    for (const c of sandboxed) {
      const run = ran.get(c.tool);
      // every sandboxed check comes back with a record; one that did not is never counted as passed
      const skipped = { status: 'skipped', files: c.files.length, reason: 'it did not run' } as const;
      findings.push(...(run?.findings ?? []));
      records.push(
        run
          ? withFound(run.record, run.findings)
          : { tool: c.tool, source: sourceText(c.check), severity: severityOf(c.check), ...skipped },
      );
    }
    // the project's builds (CI's, a deploy's, package.json's): after the checks, whose tsc findings a tsc build does not repeat
    const tscReported = (ran.get('tsc')?.findings.length ?? 0) > 0;
    const build = await runBuildChecks(ctx, files, branchName(ctx.patch.baseRef), tscReported);
    findings.push(...build.findings);
    records.push(...build.records);
    if (records.length > 0) ctx.section('checks', { checks: records });
    // a build the change touches no input of applied to nothing: it does not make the guard skipped
    const applied = records.filter((r) => r.files > 0);
    if (applied.length > 0 && applied.every((r) => r.status === 'skipped')) {
      throw new GuardSkip(applied.map((r) => `${r.tool}: ${r.reason ?? 'not run'}`).join('; '));
    }
    return findings;
  },
};
