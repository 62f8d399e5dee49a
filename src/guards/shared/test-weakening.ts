import { posix } from 'node:path';
import type { GuardFinding } from '../../core/guard.js';
import { headLineForBaseLine } from '../../core/line-map.js';
import { isAddedLine, type ChangedFile } from '../../core/patch-set.js';
import type { TestOutcome } from '../../core/suite-result.js';
import { languageOf, type LangId } from '../../repo/languages.js';
import { isSkippedPath } from '../../repo/manifests/index.js';
import { isTestPath } from './test-paths.js';
import { PY_MODULE, testUnits, type AssertionLine, type SkipMarker, type TestUnit } from './test-units.js';
import type { TestRunEvidence, TestWeakeningEvidence } from './test-weakening-evidence.js';

/**
 * Tests that exist at the base and that the PR weakens, read statically from the two versions of a
 * test file: a skip or disable written on a test (or on its group) that the base did not have, or
 * assertions deleted from a test that gets no new ones. G15 reports them as `tests-weakened` risk;
 * G8, when it runs the tests, re-runs the base version of such a test against the head and raises the
 * same finding (same fingerprint, so the two merge into one) as a `fail` when it fails there.
 */

export interface Weakening {
  path: string;
  lang: LangId;
  /** The test's or group's key (`TestCase.test_x`, `describe > it`, `TestFoo`, `tests::name`, `Class#method`). */
  test: string;
  unit: 'test' | 'group';
  how: 'skip' | 'assertions';
  /** The head line the finding points at: the added marker, or where the assertions were deleted. */
  line: number;
  /** `skip`: the markers this PR added. */
  added: SkipMarker[];
  /** `assertions`: the base's assertions that are gone. */
  removed: AssertionLine[];
}

/** Files whose tests are compared: an existing test file the PR edits, in a language with tests here. */
export function weakenableFile(file: ChangedFile): LangId | null {
  if (file.status === 'added' || file.status === 'deleted' || file.base.text === null || file.head.text === null) return null;
  const lang = languageOf(file.path);
  if (!lang || languageOf(file.oldPath ?? file.path) !== lang || isSkippedPath(file.path)) return null;
  // Rust keeps unit tests beside the code; only #[test] functions are units there.
  return isTestPath(file.path) || lang === 'rust' ? lang : null;
}

function countBy<T>(items: readonly T[], key: (t: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
  return m;
}

/** Items of `a` beyond what `b` has of the same key (a multiset difference that keeps `a`'s items). */
function beyond<T>(a: readonly T[], b: readonly T[], key: (t: T) => string, prefer: (t: T) => boolean = () => false): T[] {
  const left = countBy(b, key);
  const out: T[] = [];
  // Items on lines this PR added are the ones it introduced: match the others against the base first.
  for (const item of [...a].sort((x, y) => Number(prefer(x)) - Number(prefer(y)))) {
    const n = left.get(key(item)) ?? 0;
    if (n > 0) left.set(key(item), n - 1);
    else out.push(item);
  }
  return out;
}

/** Units by key; a key written twice (parametrised copies) keeps its occurrence number. */
function byKey(units: TestUnit[]): Map<string, TestUnit> {
  const seen = new Map<string, number>();
  const out = new Map<string, TestUnit>();
  for (const u of units) {
    const n = seen.get(u.key) ?? 0;
    seen.set(u.key, n + 1);
    out.set(n ? `${u.key}#${n}` : u.key, u);
  }
  return out;
}

const disabling = (u: TestUnit | undefined) => !!u && u.markers.some((m) => !m.conditional);

/** The weakened tests of one changed file (empty when it is not an existing test file). */
export async function testWeakenings(file: ChangedFile): Promise<Weakening[]> {
  const lang = weakenableFile(file);
  const baseText = file.base.text;
  const headText = file.head.text;
  if (!lang || baseText === null || headText === null) return [];
  const [base, head] = await Promise.all([testUnits(lang, baseText), testUnits(lang, headText)]);
  const baseUnits = byKey(base);
  const headUnits = byKey(head);
  const headLines = headText.split('\n').length;
  const out: Weakening[] = [];
  const skippedHere = new Set<string>();
  for (const [id, u] of headUnits) {
    const was = baseUnits.get(id);
    if (!was) continue; // a new test (or a renamed one): nothing it checked before is lost
    // Already off at the base (its own skip or its group's): the PR cannot weaken what did not run.
    if (disabling(was) || u.parents.some((p) => disabling(baseUnits.get(p)))) continue;
    const added = beyond(
      u.markers,
      was.markers,
      (m) => m.kind,
      (m) => isAddedLine(file, m.line),
    );
    if (added.length) {
      skippedHere.add(u.key);
      // The group's finding already names every test in it.
      if (u.parents.some((p) => skippedHere.has(p))) continue;
      const at = added.find((m) => isAddedLine(file, m.line)) ?? added[0]!;
      out.push({ path: file.path, lang, test: u.key, unit: u.kind, how: 'skip', line: at.line, added, removed: [] });
      continue;
    }
    if (u.kind !== 'test' || u.parents.some((p) => skippedHere.has(p))) continue;
    const removed = beyond(was.asserts, u.asserts, (a) => a.text);
    const gained = beyond(u.asserts, was.asserts, (a) => a.text);
    if (removed.length === 0 || gained.length > 0) continue;
    let line = 0;
    for (let l = u.line; l <= u.endLine && !line; l++) if (isAddedLine(file, l)) line = l;
    line ||= Math.min(Math.max(headLineForBaseLine(removed[0]!.line, file.removed, file.added, headLines), u.line), u.endLine);
    out.push({ path: file.path, lang, test: u.key, unit: 'test', how: 'assertions', line, added: [], removed });
  }
  return out;
}

const GROUP_NOUN: Partial<Record<LangId, string>> = { python: 'test class', java: 'test class', go: 'Ginkgo container' };

function quoteList(items: string[], max = 3): string {
  const shown = items.slice(0, max).map((s) => `\`${s.replace(/`/g, "'")}\``);
  return `${shown.join(', ')}${items.length > max ? ` and ${items.length - max} more` : ''}`;
}

function describeWeakening(w: Weakening): string {
  if (w.how === 'assertions') {
    const n = w.removed.length;
    return `The test \`${w.test}\` exists at the base, and this PR deletes ${n === 1 ? 'one of its assertions' : `${n} of its assertions`} without adding any: ${quoteList(w.removed.map((a) => a.text))}. It still runs, but no longer checks what it checked at the base.`;
  }
  const what =
    w.test === PY_MODULE && w.lang === 'python'
      ? `The test module \`${w.path}\``
      : w.unit === 'group'
        ? `The ${GROUP_NOUN[w.lang] ?? 'test group'} \`${w.test}\``
        : `The test \`${w.test}\``;
  const where = w.added.every((m) => m.conditional) ? ' on some platforms, versions or modes' : '';
  const all = w.unit === 'group' ? ', and every test in it,' : '';
  return `${what} runs at the base, and this PR disables it${all}${where} with ${quoteList(
    w.added.map((m) => m.text),
    2,
  )}. A skipped test passes whatever the code does, so what it checked is no longer checked.`;
}

/**
 * The finding for `w`. G8 passes `evidence` (what running the base version against the head showed):
 * the severity, a sentence and evidence fields; path, line, remediation and cause stay the same so that
 * G15's finding and G8's merge into one (the stronger one's text wins, see routing/merge.ts).
 */
export function weakeningFinding(
  w: Weakening,
  run?: { severity: 'fail' | 'risk'; sentence: string; evidence: TestRunEvidence },
): GuardFinding {
  const name = w.test === PY_MODULE ? w.path : w.test;
  const remediation =
    w.how === 'skip'
      ? `Remove the skip from \`${name}\` and fix what made it fail. Disabling a test is a maintainer's decision: a maintainer can accept it with \`/slopgate dismiss\` and the reason; a comment in the PR cannot.`
      : `Restore the deleted assertions of \`${w.test}\`, or, if the behaviour they checked changes on purpose, replace them with assertions of the new behaviour.`;
  return {
    category: 'tests-weakened',
    severity: run?.severity ?? 'risk',
    path: w.path,
    line: w.line,
    message: `${describeWeakening(w)}${run ? ` ${run.sentence}` : ''}`,
    remediation,
    evidence: {
      test: w.test,
      weakened: w.how,
      ...(w.how === 'skip' ? { added: w.added.map((m) => m.text) } : { removed: w.removed.map((a) => a.text) }),
      ...run?.evidence,
    } satisfies TestWeakeningEvidence,

    cause: `${w.how} ${w.test}`,
  };
}

/** The weakened tests of a whole patch. */
export async function patchWeakenings(files: readonly ChangedFile[]): Promise<Weakening[]> {
  const out: Weakening[] = [];
  for (const f of files) if (weakenableFile(f)) out.push(...(await testWeakenings(f)));
  return out;
}

/** The id after the runner's prefix and `<file>` part, split into its name parts. */
function idParts(t: TestOutcome, file: string, sep: string): string[] | null {
  const prefix = `${t.id.slice(0, t.id.indexOf(':') + 1)}${file}${sep}`;
  return t.id.startsWith(prefix) ? t.id.slice(prefix.length).split(sep) : null;
}

const startsWith = (parts: string[], head: string[]) => head.every((p, i) => parts[i] === p);

/**
 * True when the test gate's outcome `t` is the weakened test `w`, or a test of the weakened group `w`:
 * same file (Go: same package folder) and same name in the runner's notation. Ginkgo specs and
 * unknown runners never match (their outcomes do not name them).
 */
export function weakeningCovers(w: Weakening, t: TestOutcome): boolean {
  const key = w.test;
  switch (w.lang) {
    case 'python': {
      const parts = idParts(t, w.path, '::')?.map((p) => p.replace(/\[.*$/, ''));
      if (!parts) return false;
      if (key === PY_MODULE) return true;
      return w.unit === 'group' ? parts.length > 1 && parts[0] === key : parts.join('.') === key;
    }
    case 'javascript':
    case 'typescript':
    case 'tsx': {
      const parts = idParts(t, w.path, ' > ');
      const want = key.split(' > ');
      return !!parts && (w.unit === 'group' ? parts.length > want.length && startsWith(parts, want) : parts.join(' > ') === key);
    }
    case 'go': {
      if (!t.id.startsWith('go:') || w.unit !== 'test') return false;
      const dir = posix.dirname(w.path);
      return (t.file ?? '') === dir && t.id.slice(t.unit.length + 1).split('/')[0] === key;
    }
    case 'rust':
      return t.id.startsWith('rust:') && !t.id.startsWith('rust:doc:') && (t.id.endsWith(`::${key}`) || t.id.endsWith(`:${key}`));
    case 'java': {
      if (!t.id.startsWith('java:') || !t.id.includes('#')) return false;
      const cls = t.id.slice(0, t.id.indexOf('#')).split(/[.$:]/).at(-1);
      const method = /^[\p{L}_$][\p{L}\p{N}_$]*/u.exec(t.id.slice(t.id.indexOf('#') + 1))?.[0];
      const [wClass = '', wMethod] = key.split('#');
      if (cls !== wClass.split('.').at(-1)) return false;
      return w.unit === 'group' || method === wMethod;
    }
    default:
      return false;
  }
}
