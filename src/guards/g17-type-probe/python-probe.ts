import { errorMessage } from '../../core/errors.js';
import type { GuardContext, GuardFinding } from '../../core/guard.js';
import { isAddedLine, type ChangedFile } from '../../core/patch-set.js';
import { projectEnv } from '../../testgate/index.js';
import { sandboxRefusal } from '../../sandbox/index.js';
import { toolWords } from '../shared/tool-words.js';
import { addedLineIn, declarationsOf, isCertain, oneLine, probedErrors, type PyDeclaration, type PyProbeError } from './py-diagnostics.js';
import { importsOneOf, loadPyTree, pyImportersOf } from './py-tree.js';
import { pyInterfaceMayChange } from './py-interface.js';
import { runPyright } from './pyright-run.js';
import type { G17PyrightEvidence } from './evidence.js';

/**
 * G17 for Python: pyright, in the test gate's sandbox with the virtual environment G8 installs, on the
 * changed Python files and the unchanged files that import them (only when a change can alter what
 * importers see, py-interface.ts), at the head and (when the head has a candidate) at the base. Only
 * errors of the invented-API kinds (py-diagnostics.ts) that are new at the head count: on a line the
 * pull request changed, or in a caller it did not change when the name the error is about is declared
 * on a line it added (the finding then sits on that declaration and names the callers).
 */

/** Changed Python files probed per run. */
const MAX_CHANGED = 80;
/** Unchanged files that import a changed one, checked for errors the change causes there. */
const MAX_IMPORTERS = 40;
/** Callers named in one finding. */
const MAX_NAMED = 5;

/** The findings, or why the probe could not conclude (a skip: never a pass, never a finding). */
export type PythonProbeResult = { findings: GuardFinding[] } | { skipped: string };

const basePathOf = (f: ChangedFile) => f.oldPath ?? f.path;

interface Placed {
  e: PyProbeError;
  path: string;
  line: number;
  /** The changed declaration the error is blamed on (a caller the PR did not change), or null (the error's own line). */
  decl: PyDeclaration | null;
}

/** Where each kept error goes: its own added line, or the added line of the declaration it is about; null: not the PR's. */
function place(e: PyProbeError, byPath: ReadonlyMap<string, ChangedFile>, errorText: string): Placed | null {
  const own = byPath.get(e.path);
  if (own && isAddedLine(own, e.line)) return { e, path: e.path, line: e.line, decl: null };
  const names = [e.subject, e.kind === 'attribute' ? e.className : null].filter((n): n is string => n !== null);
  for (const name of names) {
    for (const f of byPath.values()) {
      const text = f.head.text;
      // the declaration is in the error's own file or in a module that file imports
      if (text === null || (f.path !== e.path && !importsOneOf(e.path, errorText, new Set([f.path])))) continue;
      for (const d of declarationsOf(name, f.path, text)) {
        const line = addedLineIn(f, d);
        if (line !== null) return { e, path: f.path, line, decl: d };
      }
    }
  }
  return null;
}

/** Dotted module → whether a tree file is that module (from the root or from `src/`). */
function treeModuleTest(files: ReadonlyMap<string, string>): (module: string) => boolean {
  return (module) => {
    const rel = module.split('.').join('/');
    return ['', 'src/'].some((root) =>
      [`${rel}.py`, `${rel}.pyi`, `${rel}/__init__.py`, `${rel}/__init__.pyi`].some((c) => files.has(`${root}${c}`)),
    );
  };
}

/** How many times the tree declares each class name, and the files that declare one with run-time attributes. */
function classIndex(files: ReadonlyMap<string, string>): { count: Map<string, number>; dynamic: Set<string> } {
  const count = new Map<string, number>();
  const dynamic = new Set<string>();
  for (const text of files.values()) {
    const dyn = /\bsetattr\(|__dict__|__getattr__|__getattribute__/.test(text);
    for (const m of text.matchAll(/^[ \t]*class[ \t]+(\w+)/gm)) {
      count.set(m[1]!, (count.get(m[1]!) ?? 0) + 1);
      if (dyn) dynamic.add(m[1]!);
    }
  }
  return { count, dynamic };
}

/** The declarations of the error's subject that decide certainty: in its own file, else in the one checked file that declares it. */
function subjectDeclarations(e: PyProbeError, texts: ReadonlyMap<string, string>): PyDeclaration[] {
  const subject = e.subject;
  if (!subject) return [];
  const own = declarationsOf(subject, e.path, texts.get(e.path) ?? '');
  if (own.length) return own;
  const elsewhere = [...texts].map(([p, t]) => declarationsOf(subject, p, t)).filter((d) => d.length > 0);
  return elsewhere.length === 1 ? elsewhere[0]! : [];
}

const at = (path: string, line: number) => `${path}:${String(line)}`;

function what(e: PyProbeError): string {
  const said = `pyright reports ${toolWords(oneLine(e.message))}, ${e.rule}`;
  if (e.kind === 'call')
    return `\`${e.subject ?? 'this call'}\` is called in a way its declaration does not accept (${said}): at run time the call raises TypeError.`;
  if (e.kind === 'module-attribute')
    return `Module \`${e.message.split('"')[3] ?? ''}\` of this repository has no \`${e.member ?? ''}\` (${said}): the access raises AttributeError.`;
  const on = e.subject ? `\`${e.subject}.${e.member ?? ''}\`` : `\`.${e.member ?? ''}\``;
  return `${on} does not exist (${said}): at run time the access raises AttributeError.`;
}

function certainty(certain: boolean, e: PyProbeError): string {
  if (certain)
    return ` \`${e.subject ?? ''}\` is certainly a \`${e.className ?? ''}\` here (the value it is assigned), and a \`${e.className ?? ''}\` has no member \`${e.member ?? ''}\`.`;
  return ' pyright infers the type from the code; if the value has this member at run time in a way it cannot see, dismiss the finding with the reason.';
}

function toFinding(group: Placed[], certainOf: (e: PyProbeError) => boolean): GuardFinding {
  const first = group[0]!;
  const e = first.e;
  const certain = group.some((g) => certainOf(g.e));
  const places = group.map((g) => at(g.e.path, g.e.line));
  const named = places.slice(0, MAX_NAMED).join(', ') + (places.length > MAX_NAMED ? ` and ${String(places.length - MAX_NAMED)} more` : '');
  const message = first.decl
    ? `This change to \`${e.subject ?? e.className ?? ''}\` breaks ${named}, which the pull request did not change: ${what(e)}${certainty(certain, e)}`
    : `${what(e)}${certainty(certain, e)}`;
  const remediation = first.decl
    ? `Keep what the callers use (${named}), or change them in this pull request too.`
    : e.kind === 'call'
      ? `Call \`${e.subject ?? 'it'}\` with the arguments its declaration takes, or change the declaration.`
      : `Use a member the value has, or give it the member \`${e.member ?? ''}\`.`;
  return {
    category: 'invented-api',
    severity: certain ? 'fail' : 'risk',
    path: first.path,
    line: first.line,
    message,
    remediation,
    evidence: {
      checker: 'pyright',
      rule: e.rule,
      subject: e.subject,
      className: e.className,
      errorAt: places,
      declaredAt: first.decl ? at(first.path, first.line) : null,
      certain,
    } satisfies G17PyrightEvidence,
  };
}

async function probe(files: ChangedFile[], ctx: GuardContext): Promise<PythonProbeResult> {
  const refusal = sandboxRefusal(ctx.config.tests.isolation);
  if (refusal && ctx.config.tests.enabled && ctx.services.tests?.enabled !== false)
    return { skipped: `pyright reads the pull request's tree only inside the sandbox: ${refusal.replace(/^tests not run: /, '')}` };
  const env = await projectEnv(ctx, 'python');
  if (!env.ok) return { skipped: env.reason };
  const probed = files.slice(0, MAX_CHANGED);
  if (files.length > probed.length)
    ctx.log.info(`G17: probing the first ${String(MAX_CHANGED)} of ${String(files.length)} changed Python files`);
  const changed = new Set(probed.map((f) => f.path));
  const byPath = new Map(files.map((f) => [f.path, f]));

  const head = await loadPyTree(ctx.head, [...changed]);
  const texts = new Map(head.files);
  for (const f of probed) if (f.head.text !== null) texts.set(f.path, f.head.text);
  // A file's importers can only break when its interface may have changed (py-interface.ts).
  const reaching = new Set<string>();
  for (const f of probed) if (await pyInterfaceMayChange(f)) reaching.add(f.path);
  const importers = pyImportersOf(head.files, reaching, changed, MAX_IMPORTERS);
  const checked = [...changed, ...importers];
  const headRun = await runPyright(ctx, 'head', ctx.head.sha, env.head, env.limits, checked);
  if (!headRun.ok) return { skipped: headRun.reason };
  const checkedSet = new Set(checked);
  const found = probedErrors(
    headRun.diagnostics.filter((d) => checkedSet.has(d.path)),
    texts,
    treeModuleTest(head.files),
  );
  const placed = found.flatMap((e) => place(e, byPath, texts.get(e.path) ?? '') ?? []);
  ctx.log.info(
    `G17: pyright checked ${String(checked.length)} Python files (${String(importers.length)} importers of the ${String(reaching.size)} whose interface may have changed): ${String(headRun.diagnostics.length)} errors, ${String(found.length)} of the probed kinds, ${String(placed.length)} on changed lines or declarations`,
  );
  for (const e of found.slice(0, 20)) ctx.log.info(`G17: pyright ${e.path}:${String(e.line)} ${e.rule}: ${oneLine(e.message)}`);
  if (!placed.length) return { findings: [] };

  // The base: the same files under their base names; an error it already had is never new.
  const headPathOf = new Map<string, string>();
  for (const p of checked) {
    const f = byPath.get(p);
    if (!f) headPathOf.set(p, p);
    else if (f.status !== 'added' && f.base.text !== null) headPathOf.set(basePathOf(f), p);
  }
  const baseKeys = new Set<string>();
  const basePaths = [];
  for (const p of headPathOf.keys()) if (await ctx.base.has(p)) basePaths.push(p);
  if (basePaths.length) {
    const baseRun = await runPyright(ctx, 'base', ctx.base.sha, env.base, env.limits, basePaths);
    if (!baseRun.ok) return { skipped: baseRun.reason };
    for (const d of baseRun.diagnostics) {
      const p = headPathOf.get(d.path);
      if (p !== undefined) baseKeys.add(`${p}\0${d.rule}\0${d.message}`);
    }
  }

  const { count, dynamic } = classIndex(head.files);
  const certainOf = (e: PyProbeError) =>
    isCertain(e, subjectDeclarations(e, texts), count, e.className !== null && dynamic.has(e.className));
  const groups = new Map<string, Placed[]>();
  for (const p of placed) {
    if (baseKeys.has(`${p.e.path}\0${p.e.rule}\0${p.e.message}`)) continue;
    const key = `${p.path}\0${String(p.line)}\0${p.e.rule}\0${p.e.message}`;
    const list = groups.get(key) ?? [];
    if (!list.some((q) => q.e.path === p.e.path && q.e.line === p.e.line)) list.push(p);
    groups.set(key, list);
  }
  return { findings: [...groups.values()].map((g) => toFinding(g, certainOf)) };
}

/** Runs the Python probe; a failure of its own (not of the code) is a skip with its cause. */
export async function probePython(files: ChangedFile[], ctx: GuardContext): Promise<PythonProbeResult> {
  try {
    return await probe(files, ctx);
  } catch (err) {
    if (ctx.signal.aborted) return { skipped: 'the type probe ran out of its time budget before it finished; nothing was concluded' };
    return { skipped: `the Python type probe failed (${errorMessage(err)}); nothing was concluded` };
  }
}
