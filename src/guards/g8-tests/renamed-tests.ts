import { posix } from 'node:path';
import type { GuardContext } from '../../core/guard.js';
import type { TestOutcome } from '../../core/suite-result.js';
import { languageOf } from '../../repo/languages.js';
import { testFileOf } from '../../testgate/index.js';
import { testCases } from '../shared/test-bodies.js';

/**
 * Removed tests that the change only renamed: a test gone from the run whose base body (its name left
 * out) is the body of a test the head has under another name, in a file the change edits or adds
 * (Go `TestTrim` → `TestTrimSmallScan`). Nothing it checked is lost, so it is not a removed test.
 */

/** The test's own name, as the test-body reader names it (the last part of the runner's id). */
function leafName(t: TestOutcome): string {
  const rest = t.id.replace(/^([^\s:]+: )?\w+:/, '');
  if (t.id.startsWith('go:')) return t.id.slice(t.unit.length + 1).split('/')[0] ?? '';
  const parts = rest.split(/ > |::/);
  return (parts.at(-1) ?? '').replace(/\[.*$/, '');
}

/** A Python method's own name (`TestC.test_x` → `test_x`). */
const leafOf = (name: string) => name.slice(name.lastIndexOf('.') + 1);

const norm = (body: string, name: string) => body.split(name).join('\u0000').replace(/\s+/g, ' ').trim();

/** Where the test can live at the base: its file, or a Go package's folder (`dir/`). */
function sameHome(t: TestOutcome, path: string): boolean {
  const file = testFileOf(t);
  return t.id.startsWith('go:') ? posix.dirname(path) === (file === '' ? '.' : file) : path === file || path.endsWith(`/${file}`);
}

/** Ids of `removed` that the change renamed (same body under a new name at the head). */
export async function renamedTests(removed: readonly TestOutcome[], ctx: GuardContext): Promise<Set<string>> {
  const out = new Set<string>();
  if (removed.length === 0) return out;
  const files = ctx.patch.files.flatMap((f) => {
    const lang = languageOf(f.path);
    return lang && lang !== 'java' ? [{ f, lang }] : [];
  });
  const baseCases: { path: string; name: string; body: string }[] = [];
  const headBodies = new Set<string>();
  const baseNames = new Map<string, Set<string>>();
  for (const { f, lang } of files) {
    const basePath = f.oldPath ?? f.path;
    if (f.base.text !== null && languageOf(basePath) === lang) {
      const cases = await testCases(lang, f.base.text);
      baseNames.set(basePath, new Set(cases.map((c) => c.name)));
      for (const c of cases) baseCases.push({ path: basePath, name: leafOf(c.name), body: c.body });
    }
  }
  for (const { f, lang } of files) {
    if (f.head.text === null) continue;
    const had = baseNames.get(f.oldPath ?? f.path) ?? new Set<string>();
    for (const c of await testCases(lang, f.head.text)) {
      // A test the base file already had under this name is not where a renamed one went.
      if (had.has(c.name)) continue;
      headBodies.add(norm(c.body, leafOf(c.name)));
    }
  }
  for (const t of removed) {
    const name = leafName(t);
    const was = baseCases.find((c) => c.name === name && sameHome(t, c.path));
    if (was?.body.trim() && headBodies.has(norm(was.body, name))) out.add(t.id);
  }
  return out;
}
