import type { Revision } from '../core/revision.js';
import { toxSites } from '../repo/ci/project-files.js';
import { isWorkflowPath, workflowSites } from '../repo/ci/workflow-sites.js';

/**
 * The repository's own test command, read from its CI (GitHub Actions workflows), tox.ini or the
 * Makefile's `test:` target. Only plain commands are taken: one test tool with simple arguments, no
 * shell syntax (pipes, `&&`, redirections, variables, globs, `${{ }}` expressions), no environment
 * prefix and no `working-directory`. Anything else is ignored and the gate's own default is used.
 * Where commands are written (workflow steps, tox environments) is read by the shared CI reader
 * (src/repo/ci/); this file says which of them is a test command.
 */

export type CiTestKind = 'pytest' | 'python-m-pytest' | 'go' | 'cargo' | 'npm-test' | 'vitest' | 'jest';

export interface PlainTestCommand {
  kind: CiTestKind;
  /** Arguments after the tool (`pytest -m "not slow" tests` → `-m`, `not slow`, `tests`). */
  args: string[];
}

export interface CiTestCommand extends PlainTestCommand {
  /** Where it was found, e.g. `.github/workflows/ci.yml`. */
  source: string;
  /** The command line as written there. */
  line: string;
}

/** Characters allowed in an unquoted word; anything else is shell syntax we do not interpret. */
const SAFE_WORD = /^[A-Za-z0-9_./:=,@%+^-]+$/;
/** Characters never allowed, quoted or not. */
const NEVER = /[$`\\\n\r]/;

/** Splits a command line into words; null when it uses any shell syntax beyond plain quoting. */
export function plainWords(line: string): string[] | null {
  const words: string[] = [];
  let i = 0;
  const s = line.trim();
  if (NEVER.test(s)) return null;
  while (i < s.length) {
    if (s[i] === ' ' || s[i] === '\t') {
      i++;
      continue;
    }
    let word = '';
    while (i < s.length && s[i] !== ' ' && s[i] !== '\t') {
      const c = s[i]!;
      if (c === '"' || c === "'") {
        const end = s.indexOf(c, i + 1);
        if (end < 0) return null;
        const inner = s.slice(i + 1, end);
        if (/["']/.test(inner)) return null;
        word += inner;
        i = end + 1;
        continue;
      }
      const m = /^[^ \t"']+/.exec(s.slice(i))?.[0];
      if (m === undefined) return null;
      if (!SAFE_WORD.test(m)) return null;
      word += m;
      i += m.length;
    }
    words.push(word);
  }
  return words;
}

/** Runners that run the tool inside the project's environment; the tool after them is what counts. */
const ENV_RUNNERS: Record<string, number> = { uv: 1, poetry: 1, pdm: 1, pipenv: 1, rye: 1, hatch: 1 };
const PYTHON = /^(python|python3|python3\.\d+|py)$/;

/** Classifies one plain command line; null when it is not a test command we can map. */
export function parsePlainTestCommand(line: string): PlainTestCommand | null {
  const words = plainWords(line);
  if (!words || words.length === 0) return null;
  let w = words;
  if ((w[0] ?? '') in ENV_RUNNERS && w[1] === 'run') w = w.slice(2);
  const [tool, ...rest] = w;
  if (!tool) return null;
  if (tool === 'pytest' || tool === 'py.test') return { kind: 'pytest', args: rest };
  if (PYTHON.test(tool) && rest[0] === '-m' && rest[1] === 'pytest') return { kind: 'python-m-pytest', args: rest.slice(2) };
  if (tool === 'coverage' && rest[0] === 'run') {
    // coverage run [--opt=value|-p] -m pytest …: like python -m, the working directory is on sys.path.
    const m = rest.indexOf('-m');
    if (m > 0 && rest[m + 1] === 'pytest' && rest.slice(1, m).every((a) => /^(-p|--\w[\w-]*=\S+|--parallel-mode|--branch)$/.test(a)))
      return { kind: 'python-m-pytest', args: rest.slice(m + 2) };
    return null;
  }
  if (tool === 'go' && rest[0] === 'test') return { kind: 'go', args: rest.slice(1) };
  if (tool === 'cargo' && rest[0] === 'test') return { kind: 'cargo', args: rest.slice(1) };
  if (
    (tool === 'npm' || tool === 'yarn' || tool === 'pnpm') &&
    (rest[0] === 'test' || rest[0] === 't' || (rest[0] === 'run' && rest[1] === 'test'))
  ) {
    const after = rest[0] === 'run' ? rest.slice(2) : rest.slice(1);
    return after.length === 0 ? { kind: 'npm-test', args: [] } : null;
  }
  if (tool === 'npx' && rest[0] === 'vitest') return { kind: 'vitest', args: rest.slice(1) };
  if (tool === 'npx' && rest[0] === 'jest') return { kind: 'jest', args: rest.slice(1) };
  return null;
}

/**
 * Whether a workflow's text can hold a command {@link parsePlainTestCommand} takes: it names one of the
 * tools (`test` as a word of its own: `ubuntu-latest` does not count), or it has a backslash (a YAML
 * escape could spell one). Parsing YAML costs a millisecond per kilobyte on the path to the suite, and
 * most workflows (release, lint, lock) run no tests.
 */
const NAMES_A_TEST_TOOL = /pytest|py\.test|vitest|jest|(?<![A-Za-z])test|\b(?:npm|yarn|pnpm)\s+t\b|\\/;

/** Plain test commands of one workflow, in step order (steps at the repository root, run by bash or sh). */
export function workflowTestCommands(source: string, text: string): CiTestCommand[] {
  if (!NAMES_A_TEST_TOOL.test(text)) return [];
  const out: CiTestCommand[] = [];
  for (const site of workflowSites(source, text)) {
    if (site.kind !== 'run' || !site.step?.atRoot) continue;
    if (site.step.shell !== undefined && !/^(bash|sh)\b/.test(site.step.shell)) continue;
    const cmd = parsePlainTestCommand(site.line);
    if (cmd) out.push({ ...cmd, source, line: site.line });
  }
  return out;
}

/** `commands` of tox's `[testenv]`: `{posargs}` is dropped, `{posargs:x}` becomes `x`. */
export function toxTestCommands(text: string): CiTestCommand[] {
  const out: CiTestCommand[] = [];
  for (const { unit, line: raw } of toxSites(text)) {
    if (unit !== 'tox:') continue;
    const line = raw.replace(/\{posargs(?::([^{}]*))?\}/g, (_m, dflt: string | undefined) => dflt ?? '').trim();
    if (/[{}]/.test(line)) continue;
    const cmd = parsePlainTestCommand(line);
    if (cmd) out.push({ ...cmd, source: 'tox.ini', line: raw });
  }
  return out;
}

/**
 * Recipe lines of the Makefile's `test:` target (a leading `@` or `-` is dropped), up to the first
 * line that is not a recipe line. Narrower than the shared reader's Makefile (which joins `\`
 * continuations and reads every rule): the test command is taken only as plainly as it is written.
 */
export function makefileTestCommands(text: string): CiTestCommand[] {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => /^test\s*:(?!=)/.test(l));
  if (start < 0) return [];
  const out: CiTestCommand[] = [];
  for (const l of lines.slice(start + 1)) {
    if (!l.startsWith('\t')) break;
    const raw = l.trim().replace(/^[@-]+/, '');
    const cmd = parsePlainTestCommand(raw);
    if (cmd) out.push({ ...cmd, source: 'Makefile', line: raw });
  }
  return out;
}

async function ciTexts(base: Revision): Promise<{ workflows: string[]; texts: Map<string, string> }> {
  const paths = await base.paths();
  const workflows = paths
    .filter(isWorkflowPath)
    .sort((a, b) => Number(!/test|ci/i.test(a)) - Number(!/test|ci/i.test(b)) || a.localeCompare(b));
  const texts = await base.readTexts([...workflows, ...['tox.ini', 'Makefile'].filter((p) => paths.includes(p))]);
  return { workflows, texts };
}

/**
 * The lines of the base tree's CI that name `tool` (a word of the line) but are not among the plain
 * commands {@link findCiTestCommands} reads: shell syntax, a `${{ }}` expression, another folder or
 * shell. A caller that reasons about *every* command CI runs with the tool gives up when there is one.
 */
export async function unreadCiLines(base: Revision, tool: string): Promise<string[]> {
  const { workflows, texts } = await ciTexts(base);
  const named = new RegExp(`(?<![\\w.-])${tool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.-])`);
  const read = new Set(commandsOf(workflows, texts).map((c) => `${c.source}\0${c.line}`));
  const lines: { source: string; line: string }[] = [];
  for (const wf of workflows)
    for (const site of workflowSites(wf, texts.get(wf) ?? '')) if (site.kind === 'run') lines.push({ source: wf, line: site.line });
  const tox = texts.get('tox.ini');
  if (tox) for (const site of toxSites(tox)) lines.push({ source: 'tox.ini', line: site.line });
  const make = texts.get('Makefile');
  if (make)
    for (const l of make.split(/\r?\n/)) if (l.startsWith('\t')) lines.push({ source: 'Makefile', line: l.trim().replace(/^[@-]+/, '') });
  return lines.filter((l) => named.test(l.line) && !read.has(`${l.source}\0${l.line}`)).map((l) => `\`${l.line}\` in ${l.source}`);
}

/**
 * Every plain test command the base tree's CI runs, best first: workflows whose file name says test
 * or CI, the other workflows, tox.ini, then the Makefile.
 */
export async function findCiTestCommands(base: Revision): Promise<CiTestCommand[]> {
  const { workflows, texts } = await ciTexts(base);
  return commandsOf(workflows, texts);
}

function commandsOf(workflows: readonly string[], texts: ReadonlyMap<string, string>): CiTestCommand[] {
  const out: CiTestCommand[] = [];
  for (const wf of workflows) out.push(...workflowTestCommands(wf, texts.get(wf) ?? ''));
  const tox = texts.get('tox.ini');
  if (tox) out.push(...toxTestCommands(tox));
  const make = texts.get('Makefile');
  if (make) out.push(...makefileTestCommands(make));
  return out;
}
