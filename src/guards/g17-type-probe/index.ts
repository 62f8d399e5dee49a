import { errorMessage } from '../../core/errors.js';
import { GuardSkip, type Guard, type GuardContext, type GuardFinding } from '../../core/guard.js';
import { isAddedLine, type ChangedFile } from '../../core/patch-set.js';
import { errorKey, errorKeys, probeErrors, type CheckBudget, type ProbeError } from './diagnostics.js';
import { importersOf } from './importers.js';
import { JS_LITERAL_EVIDENCE_CODE, jsLiteralErrors } from './js-literals.js';
import { buildProgram, loadCompiler, programOptions, virtualPath, type Compiler } from './program.js';
import { DECLARATION, DEFAULT_TREE_LIMITS, loadTree, SCRIPT } from './tree-files.js';
import { npmWorkspace, envUnavailable } from '../../testgate/index.js';
import { workspacePaths } from './workspace-paths.js';
import { G17_EVIDENCE, type G17ProbeEvidence } from './evidence.js';
import { PYTHON } from './py-tree.js';
import { probePython } from './python-probe.js';

/**
 * G17: a type probe for invented APIs. The TypeScript compiler type-checks the changed JS/TS files (and
 * the files that import them) over the base tree and over the head tree, in memory: it parses and
 * checks, it never runs the pull request's code. Only errors of the invented-API kinds that are new at
 * the head, on a changed line (or caused by a changed declaration), about a value whose type is fully
 * known from the tree, become findings.
 */

/** Changed files probed per run; the rest are not checked (the guard says so in its log). */
const MAX_CHANGED = 80;
/** Unchanged files that import a changed one, checked for errors the change causes there. */
const MAX_IMPORTERS = 40;
/** Declaration files added as roots (the ambient types the project's tsconfig would include). */
const MAX_DECLARATIONS = 200;
/** Tree files one program may parse beyond its roots. */
const MAX_PROGRAM_FILES = 1500;
/** The probe's own time budget: under the guard budget, so that running out is a skip, never a guard error. */
const BUDGET_CAP_MS = 20_000;

/** The probe's own deadline passed between two steps. */
export class ProbeTimeout extends Error {}

function budgetOf(ts: Compiler, deadline: number): CheckBudget & { check(): void } {
  return {
    token: {
      isCancellationRequested: () => Date.now() > deadline,
      throwIfCancellationRequested: () => {
        // the compiler's own cancellation exception (a class at run time; its typings declare an interface)
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        if (Date.now() > deadline) throw new ts.OperationCanceledException();
      },
    },
    check: () => {
      if (Date.now() > deadline) throw new ProbeTimeout();
    },
  };
}

const code = (n: number) => `TS${String(n)}`;

/** The compiler's message without its final period, so that the code can follow it. */
const said = (e: ProbeError) => e.text.replace(/\.$/, '');

function describe(e: ProbeError): string {
  if (e.origin === 'js-literal') {
    const keys = e.keys?.length ? e.keys.map((k) => `\`${k}\``).join(', ') : 'no keys';
    return `\`${e.receiver}.${e.member ?? ''}\` reads a key the object does not have: \`${e.receiver}\` is the object literal declared at ${e.declared.path}:${String(e.declared.line)}, whose keys are ${keys}, and nothing in the checked files adds one (no spread, no assignment to it, never passed on). At run time the read yields undefined, and calling it throws a TypeError. (The compiler does not report this in JavaScript, where object literals are open.)`;
  }
  const where = `\`${e.receiver}\` is declared at ${e.declared.path}:${String(e.declared.line)}`;
  if (e.code === 2339 || e.code === 2551)
    return `${said(e)} (${code(e.code)}). The compiler knows every member of this value (${where}): at run time the access yields undefined, and calling it throws a TypeError.`;
  if (e.code === 2349 || e.code === 2351)
    return `${said(e)} (${code(e.code)}). The compiler knows the type of \`${e.receiver}\` (declared at ${e.declared.path}:${String(e.declared.line)}): at run time this throws a TypeError.`;
  return `\`${e.receiver}\` is called with the wrong number of arguments: ${said(e)} (${code(e.code)}); ${where}.`;
}

function remediation(e: ProbeError): string {
  if (e.origin === 'js-literal')
    return `Use a key the object has, or add \`${e.member ?? ''}\` to the object literal at ${e.declared.path}:${String(e.declared.line)}. If it is added at run time in a way the probe cannot see, dismiss this finding with the reason.`;
  if (e.code === 2554 || e.code === 2555)
    return `Pass the arguments the declaration at ${e.declared.path}:${String(e.declared.line)} takes, or change it.`;
  return `Use a member the value has, or add the missing one to its declaration at ${e.declared.path}:${String(e.declared.line)}. If it is added at run time where the compiler cannot see it, declare it (a type or a JSDoc @type) or dismiss this finding with the reason.`;
}

/** The first line of `range` the pull request added in `file`, or null. */
function addedLineIn(file: ChangedFile, start: number, end: number): number | null {
  for (let line = start; line <= end; line++) if (isAddedLine(file, line)) return line;
  return null;
}

/** Where a new error is reported: its own line when the PR changed it, else the changed declaration that causes it. */
function place(e: ProbeError, byPath: ReadonlyMap<string, ChangedFile>): { path: string; line: number; caused: boolean } | null {
  const own = byPath.get(e.path);
  if (own && isAddedLine(own, e.line)) return { path: e.path, line: e.line, caused: false };
  const decl = byPath.get(e.declared.path);
  const line = decl ? addedLineIn(decl, e.declared.line, e.declared.endLine) : null;
  return decl && line !== null ? { path: decl.path, line, caused: true } : null;
}

function toFinding(e: ProbeError, at: { path: string; line: number; caused: boolean }): GuardFinding {
  const message = at.caused
    ? `This change to \`${e.receiver}\` breaks ${e.path}:${String(e.line)}, which the pull request did not change: ${describe(e)}`
    : describe(e);
  return {
    category: 'invented-api',
    // fail only where the corpus measurement allows it: the value's shape is declared in the same TypeScript file
    severity: e.certain ? 'fail' : 'risk',
    path: at.path,
    line: at.line,
    message,
    remediation: remediation(e),
    evidence: {
      compilerCode: e.origin === 'js-literal' ? JS_LITERAL_EVIDENCE_CODE : code(e.code),
      receiver: e.receiver,
      declaredAt: `${e.declared.path}:${String(e.declared.line)}`,
      errorAt: `${e.path}:${String(e.line)}`,
      certain: e.certain,
    } satisfies G17ProbeEvidence,
  };
}

async function probe(files: ChangedFile[], ctx: GuardContext): Promise<GuardFinding[]> {
  const deadline = Date.now() + Math.min(BUDGET_CAP_MS, Math.floor(ctx.config.guards.timeoutMs * 0.6));
  const ts = await loadCompiler();
  const budget = budgetOf(ts, deadline);
  const probed = files.slice(0, MAX_CHANGED);
  if (files.length > probed.length)
    ctx.log.info(`G17: probing the first ${String(MAX_CHANGED)} of ${String(files.length)} changed JS/TS files`);
  const changed = new Set(probed.map((f) => f.path));
  const byPath = new Map(files.map((f) => [f.path, f]));

  const head = await loadTree(ctx.head, [...changed], DEFAULT_TREE_LIMITS);
  budget.check();
  const { options, source } = programOptions(ts, head.files.get('tsconfig.json'));
  // Workspace siblings resolve to their source in the tree (the project's own `paths` win).
  const siblings = workspacePaths(await npmWorkspace(ctx.head), head.files, options.paths);
  if (Object.keys(siblings).length) options.paths = { ...siblings, ...options.paths };
  ctx.log.debug(
    `G17: compiler options from ${source}; ${String(Object.keys(siblings).length / 2)} workspace packages mapped to their source${head.truncated ? '; the tree was larger than the probe reads' : ''}`,
  );
  const importers = importersOf(ts, head.files, changed, options, MAX_IMPORTERS);
  const declarations = [...head.files.keys()].filter((p) => DECLARATION.test(p) && !changed.has(p)).slice(0, MAX_DECLARATIONS);
  const checked = [...changed, ...importers];
  const headProgram = buildProgram(ts, {
    files: head.files,
    roots: [...checked, ...declarations],
    options,
    maxProgramFiles: MAX_PROGRAM_FILES,
    beforeParse: () => budget.check(),
  });
  const headPaths = checked.map((p): [string, string] => [virtualPath(p), p]);
  // the compiler's errors, and the keys JavaScript object literals lack (which the compiler does not report)
  const found = [...probeErrors(ts, headProgram, headPaths, budget), ...jsLiteralErrors(ts, headProgram, headPaths, budget)];
  const placed = found.flatMap((e) => {
    const at = place(e, byPath);
    return at ? [{ e, at }] : [];
  });
  if (!placed.length) return [];

  // The base: the same files under their base names; an error it already had is never new.
  const basePath = new Map<string, string>();
  for (const p of checked) {
    const f = byPath.get(p);
    if (!f) basePath.set(p, p);
    else if (f.status !== 'added') basePath.set(p, f.oldPath ?? p);
  }
  const base = await loadTree(ctx.base, [...basePath.values()], DEFAULT_TREE_LIMITS);
  budget.check();
  const baseRoots = [...basePath.values()].filter((p) => base.files.has(p));
  const baseDeclarations = [...base.files.keys()].filter((p) => DECLARATION.test(p)).slice(0, MAX_DECLARATIONS);
  const baseProgram = buildProgram(ts, {
    files: base.files,
    roots: [...baseRoots, ...baseDeclarations],
    options,
    maxProgramFiles: MAX_PROGRAM_FILES,
    beforeParse: () => budget.check(),
  });
  const basePaths = [...basePath].map(([headPath, oldPath]): [string, string] => [virtualPath(oldPath), headPath]);
  const before = errorKeys(ts, baseProgram, basePaths, budget);
  for (const e of jsLiteralErrors(ts, baseProgram, basePaths, budget)) before.add(errorKey(e.path, e.code, e.text));

  const seen = new Set<string>();
  const findings: GuardFinding[] = [];
  for (const { e, at } of placed) {
    if (before.has(errorKey(e.path, e.code, e.text))) continue;
    const id = `${at.path}\0${String(at.line)}\0${e.text}`;
    if (seen.has(id)) continue;
    seen.add(id);
    findings.push(toFinding(e, at));
  }
  return findings;
}

/**
 * What a failed probe reports: running out of time or a compiler crash is a skip with its cause (never a
 * pass, never a finding). `ts` is the loaded compiler (its cancellation exception is a class of it).
 */
export function probeSkip(err: unknown, ts: Compiler): GuardSkip {
  if (err instanceof GuardSkip) return err;
  if (err instanceof ProbeTimeout || err instanceof ts.OperationCanceledException)
    return new GuardSkip('the type probe ran out of its time budget before it finished; nothing was concluded');
  return new GuardSkip(`the TypeScript compiler failed on this tree (${errorMessage(err)}); nothing was concluded`);
}

const isPython = (file: ChangedFile) => PYTHON.test(file.path) && file.status !== 'deleted';

/** Runs the JS/TS probe; a failure of its own is a skip's cause. */
async function probeScripts(files: ChangedFile[], ctx: GuardContext): Promise<{ findings: GuardFinding[] } | { skipped: string }> {
  try {
    return { findings: await probe(files, ctx) };
  } catch (err) {
    return { skipped: probeSkip(err, await loadCompiler()).reason };
  }
}

export const g17: Guard = {
  id: 'G17',
  name: 'Invented APIs (type probe: TypeScript, pyright)',
  evidence: G17_EVIDENCE,
  // In a guard thread it gets the plain-data part of the test options (gate/thread-placement.ts).
  needs: { services: ['tests'], config: ['tests'] },
  appliesTo: (file: ChangedFile) => (SCRIPT.test(file.path) || isPython(file)) && file.head.text !== null,
  // Python only: its time is pyright's, in the sandbox, so it starts at once beside the static guards.
  alongside: (patch) => patch.files.some(isPython) && !patch.files.some((f) => SCRIPT.test(f.path)),
  // With Python files: pyright runs in the sandbox after the dependency install G8 budgets (base, head, one
  // retry), then once per side within tests.timeoutSec.
  budgetMs: (ctx) => {
    const base = ctx.config.guards.timeoutMs;
    if (!ctx.patch.files.some(isPython) || envUnavailable(ctx)) return base;
    const t = ctx.config.tests;
    return Math.max(base, 120_000) + 3 * Math.max(t.timeoutSec, 900) * 1000 + 2 * t.timeoutSec * 1000;
  },
  async checkAll(files: ChangedFile[], ctx: GuardContext): Promise<GuardFinding[]> {
    const scripts = files.filter((f) => SCRIPT.test(f.path));
    const python = files.filter(isPython);
    const parts: { language: string; result: { findings: GuardFinding[] } | { skipped: string } }[] = [];
    if (scripts.length) parts.push({ language: 'JavaScript/TypeScript', result: await probeScripts(scripts, ctx) });
    if (python.length) parts.push({ language: 'Python', result: await probePython(python, ctx) });
    const findings = parts.flatMap((p) => ('findings' in p.result ? p.result.findings : []));
    const skipped = parts.flatMap((p) => ('skipped' in p.result ? [`${p.language}: ${p.result.skipped}`] : []));
    if (!skipped.length) return findings;
    // One language could not be checked: with no finding from the other, the guard is a skip (never a pass).
    if (!findings.length) {
      const clean = parts.filter((p) => 'findings' in p.result).map((p) => `${p.language}: checked, nothing found`);
      throw new GuardSkip([...skipped, ...clean].join('; '));
    }
    ctx.log.warn(`G17: ${skipped.join('; ')}`);
    return findings;
  },
};
