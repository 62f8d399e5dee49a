import type { TestOutcome } from '../core/suite-result.js';

/**
 * Which base test each head test is, when the ids differ only in what changes from one run of the
 * suite to the next. A parametrized test's id carries its parameters' text (pytest's `test_x[<obj at
 * 0x7f…>]`), and that text can hold a memory address, a fresh uuid, a temporary path or a set whose
 * order follows the hash seed: the same test then has another id at the base and at the head, and
 * neither side's result would be compared (pydantic's suite has dozens). Ids are paired exactly
 * first; the rest by their text with those run-dependent parts masked, then by the words of their
 * parameters in any order (a list built from a set), each only where the key names one test on each
 * side. What stays unpaired is a test that is gone or new.
 */

const ADDRESS = /0x[0-9a-fA-F]{6,}/g;
const UUID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;
const TEMP_PATH = /\/(?:tmp|var\/folders)\/[^\s\],)'"]*/g;

/** A brace group without nested braces (a set's or a dict's text). */
const BRACES = /\{([^{}]*)\}/g;

/** The id with its run-dependent parts masked, and the elements of each set in one order. */
export function maskedId(id: string): string {
  return id
    .replace(UUID, '<uuid>')
    .replace(ADDRESS, '0x…')
    .replace(TEMP_PATH, '<tmp>')
    .replace(BRACES, (_m, inner: string) => `{${inner.split(', ').sort().join(', ')}}`);
}

function groupBy(tests: readonly TestOutcome[], key: (t: TestOutcome) => string | null): Map<string, TestOutcome[]> {
  const out = new Map<string, TestOutcome[]>();
  for (const t of tests) {
    const k = key(t);
    if (k === null) continue;
    const list = out.get(k);
    if (list) list.push(t);
    else out.set(k, [t]);
  }
  return out;
}

/** The test function and its parameters' words, sorted (null for an id without parameters). */
function wordsKey(t: TestOutcome): string | null {
  const i = t.id.indexOf('[');
  if (i <= 0 || !t.id.endsWith(']')) return null;
  const words = maskedId(t.id.slice(i + 1, -1)).match(/[\w.'"<>…-]+/g) ?? [];
  return `${t.id.slice(0, i)}[${words.sort().join(' ')}]`;
}

/** Pairs the unpaired tests whose key is one test on each side. */
function pairBy(pairs: Map<string, TestOutcome>, base: TestOutcome[], head: TestOutcome[], key: (t: TestOutcome) => string | null): void {
  const used = new Set([...pairs.values()].map((b) => b.id));
  const baseGroups = groupBy(
    base.filter((t) => !used.has(t.id)),
    key,
  );
  for (const [k, hs] of groupBy(
    head.filter((t) => !pairs.has(t.id)),
    key,
  )) {
    const bs = baseGroups.get(k);
    if (bs?.length === 1 && hs.length === 1) pairs.set(hs[0]!.id, bs[0]!);
  }
}

/** Head id → the base test it is. */
export function pairTests(base: readonly TestOutcome[], head: readonly TestOutcome[]): Map<string, TestOutcome> {
  const pairs = new Map<string, TestOutcome>();
  const baseById = new Map(base.map((t) => [t.id, t]));
  const headIds = new Set(head.map((t) => t.id));
  for (const t of head) {
    const b = baseById.get(t.id);
    if (b) pairs.set(t.id, b);
  }
  const baseLeft = base.filter((t) => !headIds.has(t.id));
  const headLeft = head.filter((t) => !pairs.has(t.id));
  if (baseLeft.length === 0 || headLeft.length === 0) return pairs;
  // the masked id, then its parameters' words in any order (a list built from a set, a repr that
  // prints a hash map): each only where it names one test on each side
  pairBy(pairs, baseLeft, headLeft, (t) => {
    const masked = maskedId(t.id);
    return masked === t.id ? null : masked;
  });
  pairBy(pairs, baseLeft, headLeft, wordsKey);
  return pairs;
}
