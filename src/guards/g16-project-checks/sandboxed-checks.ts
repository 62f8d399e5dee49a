import { inRanges } from '../../core/diff-hunks.js';
import { isRecord } from '../../core/is-record.js';
import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import type { ProjectCheckRecord } from '../../core/report-sections.js';
import type { DiscoveredCheck } from './discover.js';
import { formatterFinding, severityOf, SHOWN, sourceText, toolWords, whyText } from './finding-text.js';
import { projectEnv, runOnSide, type ToolEcosystem, type ToolRunResult } from '../../testgate/index.js';
import { isLinter, isToolFormatter, type G16LintEvidence } from './evidence.js';
import { readClippyCommand } from './clippy-options.js';
import {
  BIN_OF,
  CLIPPY_PROBE,
  ECOSYSTEM_OF,
  formatterCommand,
  isFormatter,
  LINT_OUT,
  linterCommand,
  MISSING_EXIT,
  outNames,
  parseDiagnostics,
  tscProject,
  type Diagnostic,
  type SandboxedTool,
} from './tool-commands.js';

/**
 * The project's tools that run its code or need its dependencies (ruff, black, prettier, eslint,
 * tsc, go vet, mypy, clippy), run in the sandbox on the changed files at the base and at the head, each side with its
 * own installed dependencies. Only what the pull request introduced is a finding: a formatter's
 * rewrite of a file that was clean at the base (or is new), on lines the pull request changed; a
 * linter's diagnostic on a changed line that the base did not have as often in that file.
 */

export interface SandboxedCheck {
  tool: SandboxedTool;
  check: DiscoveredCheck;
  files: ChangedFile[];
}

export interface ToolRun {
  findings: GuardFinding[];
  record: ProjectCheckRecord;
}

/** Files one tool checks per run; the rest are named as not checked. */
const MAX_FILES = 100;
/** Findings one tool reports at most. */
const MAX_FINDINGS = 50;

const firstLine = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l && !/^warning/i.test(l)) ?? '';

/** What a formatter says when the file does not parse or is not its kind: G2's business, or nothing to say. */
const NOT_ITS_FILE = /No parser could be inferred|SyntaxError|Cannot parse|Failed to parse|error: Failed|ParseError|Unexpected token/i;

const basePath = (f: ChangedFile) => f.oldPath ?? f.path;
const existedAtBase = (f: ChangedFile) => f.status !== 'added' && f.base.text !== null;

function missingReason(tool: SandboxedTool, check: DiscoveredCheck, r: ToolRunResult): string {
  const bin = BIN_OF[tool];
  if (ECOSYSTEM_OF[tool] === 'go') return 'go is not installed on the machine running slopgate';
  if (tool === 'clippy') {
    if (!r.stderr.includes('slopgate: clippy is not installed')) return 'cargo is not installed on the machine running slopgate';
    const said = firstLine(r.out.get(CLIPPY_PROBE) ?? '');
    return `clippy is not installed in the Rust toolchain slopgate runs (add it with \`rustup component add clippy\`)${said ? `: ${toolWords(said, 200)}` : ''}`;
  }
  // a pre-commit hook brings its own copy of the tool; slopgate runs only what the project installs
  const hook = check.source.startsWith('.pre-commit-config') ? `the pre-commit hook's own ${bin} is not run, and ` : '';
  return (
    hook +
    (ECOSYSTEM_OF[tool] === 'python'
      ? `${bin} is not installed in the project's Python dependencies (the virtual environment G8 installs from its manifests and requirements files); declare it in a dev or test dependency group to have it checked`
      : `${bin} is not installed in the project's node_modules; declare it in devDependencies to have it checked`)
  );
}

function runFailure(p: Prepared, r: ToolRunResult | undefined, side: string): string | null {
  const tool = p.tool;
  if (!r) return `${BIN_OF[tool]} did not run at the ${side}`;
  if (r.killed) return `${BIN_OF[tool]} at the ${side}: ${r.killed}`;
  if (r.exitCode === MISSING_EXIT && r.stderr.includes('slopgate:')) return missingReason(tool, p.check, r);
  return null;
}

interface Prepared {
  tool: SandboxedTool;
  check: DiscoveredCheck;
  files: ChangedFile[];
  project: string | null;
  /** Changed files the check applied to, before the cap. */
  total: number;
  baseFiles: ChangedFile[];
  baseIndex: number;
  headIndex: number;
}

/** Runs every sandboxed check of one ecosystem; each gets its record (and findings) in `into`. */
async function runEcosystem(
  eco: ToolEcosystem,
  checks: SandboxedCheck[],
  ctx: GuardContext,
  into: Map<SandboxedTool, ToolRun>,
): Promise<void> {
  const skip = (c: SandboxedCheck, reason: string) =>
    into.set(c.tool, {
      findings: [],
      record: {
        tool: c.tool,
        source: sourceText(c.check),
        severity: severityOf(c.check),
        status: 'skipped',
        files: c.files.length,
        reason,
      },
    });
  const endInstall = ctx.services.tests?.stage?.(`install for ${checks.map((c) => c.tool).join(', ')}`);
  const env = await projectEnv(ctx, eco).finally(() => endInstall?.());
  if (!env.ok) {
    for (const c of checks) skip(c, env.reason);
    return;
  }
  const baseCommands: { command: string; outNames: string[]; scrubOut: boolean }[] = [];
  const headCommands: { command: string; outNames: string[]; scrubOut: boolean }[] = [];
  const prepared: Prepared[] = [];
  for (const c of checks) {
    const files = c.files.slice(0, MAX_FILES);
    let project: string | null = null;
    // clippy checks the crate or workspace at the root, as G8's cargo test does
    if (c.tool === 'clippy' && !(await ctx.base.has('Cargo.toml'))) {
      skip(c, 'there is no Cargo.toml at the root of the repository at the base, and clippy is run only there');
      continue;
    }
    if (c.tool === 'tsc') {
      project = tscProject(c.check.line);
      const config = project ?? 'tsconfig.json';
      const at = project && !project.endsWith('.json') ? `${project.replace(/\/$/, '')}/tsconfig.json` : config;
      if (!(await ctx.base.has(at))) {
        skip(c, `${at} does not exist at the base, so there is no project to check`);
        continue;
      }
    }
    const baseFiles = files.filter(existedAtBase);
    // clippy: also what cargo said when its clippy probe failed (the reason of the skip)
    const lintOut = c.tool === 'clippy' ? [LINT_OUT, CLIPPY_PROBE] : [LINT_OUT];
    const names = (n: number) => (isFormatter(c.tool) ? Array.from({ length: n }, (_, i) => outNames(i)).flat() : lintOut);
    const cmd = (paths: string[]) =>
      isFormatter(c.tool) ? formatterCommand(c.tool, paths) : linterCommand(c.tool, paths, project, c.check.args ?? []);
    const p: Prepared = { ...c, files, project, total: c.files.length, baseFiles, baseIndex: -1, headIndex: headCommands.length };
    const scrubOut = !isFormatter(c.tool);
    headCommands.push({ command: cmd(files.map((f) => f.path)), outNames: names(files.length), scrubOut });
    // tsc checks the whole project at the base too, to know which of the head's errors were already there
    if (baseFiles.length > 0 || c.tool === 'tsc') {
      p.baseIndex = baseCommands.length;
      baseCommands.push({ command: cmd(baseFiles.map(basePath)), outNames: names(baseFiles.length), scrubOut });
    }
    prepared.push(p);
  }
  if (prepared.length === 0) return;
  const gitRepo = eco === 'go' || eco === 'cargo';
  // The progress line names the tools running now (`eslint, prettier at the base`).
  const tools = prepared.map((p) => p.tool).join(', ');
  const asStage = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const end = ctx.services.tests?.stage?.(name);
    try {
      return await work();
    } finally {
      end?.();
    }
  };
  const baseRuns = baseCommands.length
    ? await asStage(`${tools} at the base`, () => runOnSide(ctx, ctx.base.sha, env.base, env.limits, baseCommands, gitRepo))
    : [];
  const headRuns = await asStage(`${tools} at the head`, () => runOnSide(ctx, ctx.head.sha, env.head, env.limits, headCommands, gitRepo));
  for (const p of prepared) {
    const head = headRuns[p.headIndex];
    const base = p.baseIndex >= 0 ? baseRuns[p.baseIndex] : undefined;
    const failed = runFailure(p, head, 'head') ?? (p.baseIndex >= 0 ? runFailure(p, base, 'base') : null);
    if (failed || !head) {
      skip(p, failed ?? `${BIN_OF[p.tool]} did not run at the head`);
      continue;
    }
    // eslint-plugin-prettier's errors are prettier's finding when prettier runs too (one finding, with the fix)
    const drop = p.tool === 'eslint' && prepared.some((x) => x.tool === 'prettier') ? 'prettier/prettier' : null;
    const run = isFormatter(p.tool) ? formatterRun(p, base, head) : linterRun(p, base, head, drop);
    if (typeof run === 'string') skip(p, run);
    else {
      if (p.files.length < p.total) {
        const note = `checked the first ${MAX_FILES} of ${p.total} files; the others were not checked`;
        run.record.status = 'partial';
        run.record.reason = run.record.reason ? `${note}; ${run.record.reason}` : note;
      }
      into.set(p.tool, run);
    }
  }
}

/** One file's output from a formatter run: its formatted text, a reason it could not be checked, or null when it is not the tool's to judge. */
function formatted(r: ToolRunResult, i: number, text: string): { text: string } | { failed: string } | null {
  const [out, err, rc] = outNames(i);
  const code = r.out.get(rc)?.trim();
  const stderr = r.out.get(err) ?? '';
  if (code === '0') {
    const t = r.out.get(out);
    if (t === undefined || (t === '' && text.trim() !== '')) return { failed: 'the formatter printed nothing' };
    return { text: t };
  }
  if (NOT_ITS_FILE.test(stderr)) return null;
  return { failed: `exit ${code ?? '?'}: ${firstLine(stderr) || 'no message'}` };
}

const FIX: Record<string, (path: string) => string> = {
  'ruff-format': (p) => `ruff format ${p}`,
  black: (p) => `black ${p}`,
  prettier: (p) => `prettier --write ${p}`,
};

function formatterRun(p: Prepared, base: ToolRunResult | undefined, head: ToolRunResult): ToolRun | string {
  const record: ProjectCheckRecord = {
    tool: p.tool,
    source: sourceText(p.check),
    severity: severityOf(p.check),
    status: 'ran',
    files: p.files.length,
  };
  const findings: GuardFinding[] = [];
  const failed: string[] = [];
  p.files.forEach((file, i) => {
    const headText = file.head.text;
    if (headText === null) return;
    const baseText = file.base.text;
    if (existedAtBase(file) && baseText !== null) {
      const at = p.baseFiles.indexOf(file);
      const before = base ? formatted(base, at, baseText) : null;
      if (before === null) return; // not the formatter's file at the base (or it did not parse there)
      if ('failed' in before) {
        failed.push(`${file.path} (${before.failed})`);
        return;
      }
      if (before.text !== baseText) return; // already unformatted at the base: not this pull request's doing
    }
    const after = formatted(head, i, headText);
    if (after === null) return;
    if ('failed' in after) {
      failed.push(`${file.path} (${after.failed})`);
      return;
    }
    if (after.text === headText || findings.length >= MAX_FINDINGS) return;
    const command = FIX[p.tool]!(file.path);
    if (!isToolFormatter(p.tool)) return;
    const f = formatterFinding({ tool: p.tool, check: p.check, file, head: headText, formatted: after.text, command, evidence: {} });
    if (f) findings.push(f);
  });
  if (failed.length > 0) {
    const reason = `could not check ${failed.slice(0, 3).join('; ')}${failed.length > 3 ? ` and ${failed.length - 3} more` : ''}`;
    if (failed.length >= p.files.length) return reason;
    record.reason = reason;
  }
  return { findings, record };
}

/**
 * Exit statuses that mean the linter ran (with or without findings); anything else is its own failure.
 * mypy's 2 is a crash, a configuration error or a file it cannot parse; cargo's 101 is a lint at
 * level error or a target that does not compile (its messages are read either way).
 */
const RAN: Record<string, number[]> = {
  'ruff-check': [0],
  eslint: [0, 1],
  tsc: [0, 1, 2],
  'go-vet': [0, 1],
  mypy: [0, 1],
  clippy: [0, 101],
};

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

/** What a failed run said, in one line: cargo's first `error` line (its progress lines come first), else the first line. */
function saidBy(p: Prepared, r: ToolRunResult, report: string): string {
  if (p.tool === 'clippy') {
    const err = r.stderr.split('\n').find((l) => /^error\b/.test(l.trim()));
    if (err) return err.trim();
  }
  if (p.tool === 'mypy') {
    // a blocking error (a file that does not parse, a duplicate module) comes as one of its diagnostics
    const line = report
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean);
    if (line && !line.startsWith('{')) return line;
    const v = line ? jsonObject(line) : null;
    if (v && typeof v.file === 'string' && typeof v.message === 'string') return `${v.file}:${String(v.line)}: ${v.message}`;
  }
  return firstLine(r.stderr) || firstLine(report) || firstLine(r.stdout) || 'no message';
}

function diagnosticsOf(p: Prepared, r: ToolRunResult, side: string): Diagnostic[] | string {
  const bin = BIN_OF[p.tool];
  const report = r.out.get(LINT_OUT) ?? '';
  const said = saidBy(p, r, report);
  if (r.exitCode === null || !RAN[p.tool]!.includes(r.exitCode))
    return `${bin} failed at the ${side} (exit ${String(r.exitCode)}): ${said}`;
  const d = parseDiagnostics(p.tool, report);
  // go vet exits 1 for its findings and for a package it cannot load alike (cargo 101 for a lint error and for a
  // workspace it cannot resolve): without a diagnostic it is the latter
  if (d === null || ((p.tool === 'go-vet' || p.tool === 'clippy') && r.exitCode !== 0 && d.length === 0))
    return `${bin} failed at the ${side}: ${said}`;
  return d;
}

const key = (d: Diagnostic) => `${d.rule}\0${d.message}`;

function linterRun(p: Prepared, base: ToolRunResult | undefined, head: ToolRunResult, dropRule: string | null): ToolRun | string {
  const headAll = diagnosticsOf(p, head, 'head');
  if (typeof headAll === 'string') return headAll;
  const headDiags = headAll.filter((d) => d.rule !== dropRule);
  const baseDiags = base ? diagnosticsOf(p, base, 'base') : [];
  if (typeof baseDiags === 'string') return baseDiags;
  const byHeadPath = new Map(p.files.map((f) => [f.path, f]));
  const headPathOf = new Map(p.files.filter(existedAtBase).map((f) => [basePath(f), f.path]));
  // How often each (file, rule, message) occurs at the base: the head's excess is what the pull request added.
  const baseCount = new Map<string, number>();
  for (const d of baseDiags) {
    const path = headPathOf.get(d.path);
    if (path === undefined) continue;
    const k = `${path}\0${key(d)}`;
    baseCount.set(k, (baseCount.get(k) ?? 0) + 1);
  }
  const groups = new Map<string, Diagnostic[]>();
  for (const d of headDiags) {
    if (!byHeadPath.has(d.path)) continue;
    const k = `${d.path}\0${key(d)}`;
    groups.set(k, [...(groups.get(k) ?? []), d]);
  }
  const findings: GuardFinding[] = [];
  for (const [k, list] of groups) {
    const excess = list.length - (baseCount.get(k) ?? 0);
    if (excess <= 0) continue;
    const file = byHeadPath.get(list[0]!.path);
    if (!file) continue;
    for (const d of list.filter((x) => inRanges(file.added, x.line)).slice(0, excess)) {
      if (findings.length >= MAX_FINDINGS) break;
      const f = diagnosticFinding(p, file, d);
      if (f) findings.push(f);
    }
  }
  findings.sort((a, b) => (a.path ?? '').localeCompare(b.path ?? '') || (a.line ?? 0) - (b.line ?? 0));
  return {
    findings,
    record: { tool: p.tool, source: sourceText(p.check), severity: severityOf(p.check), status: 'ran', files: p.files.length },
  };
}

/** The command an author reruns to see the diagnostic. */
function rerunCommand(p: Prepared, file: ChangedFile): string {
  const dir = file.path.includes('/') ? file.path.slice(0, file.path.lastIndexOf('/')) : '.';
  if (p.tool === 'tsc') return `tsc --noEmit${p.project ? ` -p ${p.project}` : ''}`;
  if (p.tool === 'go-vet') return `go vet ${dir === '.' ? '.' : `./${dir}`}`;
  if (p.tool === 'clippy') {
    const options = readClippyCommand(p.check.args ?? []).options;
    return `cargo clippy${options.length ? ` ${options.join(' ')}` : ''}`;
  }
  return `${SHOWN[p.tool]} ${file.path}`;
}

/**
 * What a clippy lint weighs: a lint at level error fails `cargo clippy` wherever it runs; a warning
 * only where the run denies warnings (the check's `enforced`).
 */
function checkFor(p: Prepared, d: Diagnostic): DiscoveredCheck {
  return p.tool === 'clippy' && d.level === 'error' ? { ...p.check, enforced: true } : p.check;
}

/** Why a clippy warning does not fail the project's run. */
function clippyWhy(c: DiscoveredCheck): string {
  if (c.inCi)
    return `The repository's CI runs clippy (${c.source}: \`${c.line}\`) without denying warnings, so it reports this without failing.`;
  return `The project runs clippy locally (${c.source}: \`${c.line}\`), not in CI.`;
}

function diagnosticFinding(p: Prepared, file: ChangedFile, d: Diagnostic): GuardFinding | null {
  const tool = p.tool;
  if (!isLinter(tool)) return null;
  const bin = tool === 'clippy' ? 'clippy' : BIN_OF[tool];
  const check = checkFor(p, d);
  // go vet names no rule (nor does mypy for a few errors); the others' rule leads their words
  const words = p.tool === 'go-vet' || d.rule === '' ? d.message : `${d.rule}: ${d.message}`;
  const why = p.tool === 'clippy' && !(check.inCi && check.enforced) ? clippyWhy(check) : whyText(check);
  // a clippy warning that does not fail the run is reported, not rejected
  const verb = p.tool === 'clippy' && !check.enforced ? 'warns about' : 'rejects';
  return {
    category: 'lint-violation',
    severity: severityOf(check),
    path: file.path,
    line: d.line,
    message: `\`${SHOWN[p.tool]}\` ${verb} line ${d.line} of ${file.path}, which the pull request changed: ${toolWords(words)}. The base did not have this. ${why}`,
    remediation: `Fix what ${bin} reports on line ${d.line} and check with \`${rerunCommand(p, file)}\` before pushing again.`,
    cause: p.tool,
    evidence: { tool, rule: d.rule, source: sourceText(p.check) } satisfies G16LintEvidence,
  };
}

/** Runs the sandboxed checks, grouped by the ecosystem whose dependencies they need. */
export async function runSandboxedChecks(checks: SandboxedCheck[], ctx: GuardContext): Promise<Map<SandboxedTool, ToolRun>> {
  const into = new Map<SandboxedTool, ToolRun>();
  for (const eco of ['python', 'node', 'go', 'cargo'] as const) {
    const mine = checks.filter((c) => ECOSYSTEM_OF[c.tool] === eco);
    if (mine.length) await runEcosystem(eco, mine, ctx, into);
  }
  return into;
}
