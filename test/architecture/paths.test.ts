import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The contributor docs name files a newcomer opens first; a moved file must take its mention along. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = ['CONTRIBUTING.md', 'docs/architecture.md'];

/** The guard the CONTRIBUTING walkthrough builds as an example (it says the guard does not exist). */
const ILLUSTRATIONS = ['src/guards/g18-debugger/index.ts', 'test/guards/g18-debugger.test.ts'];

/** Top-level folders of the repository: a path starting with one of them is read from the repository root. */
const TOP = ['src', 'test', 'docs', 'schemas', 'bench', 'action', '.ci'];

/** Folders of src/: the docs also name files relative to src/ (`platforms/github/app.ts`, `gate/run-gate`). */
const SRC_FOLDERS = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

/**
 * The repository paths a Markdown text names: every word that starts at a top-level folder of the repository
 * (`src/core/guard.ts`, `test/helpers/`, `docs/x.md#anchor`) or at a folder of src/ (`host/pr-job.ts`,
 * `gate/run-gate`), in code spans, code blocks and prose alike. A word inside a longer path (`owner/repo`,
 * `@octokit/rest`, a URL) is none. Placeholders (`src/guards/<id>-<name>/`) and globs are not paths and are left out.
 */
function namedPaths(markdown: string, srcFolders = SRC_FOLDERS): string[] {
  const out = new Set<string>();
  const folders = [...new Set([...TOP, ...srcFolders])].map((f) => f.replace(/\./g, '\\.')).join('|');
  for (const m of markdown.matchAll(new RegExp(`(?<![\\w./'"@:-])((?:${folders})/[\\w./<>*{}-]*)`, 'g'))) {
    const path = m[1]!.replace(/#.*$/, '').replace(/[.,:;]+$/, '');
    if (/[<>*{}]/.test(path)) continue;
    out.add(path);
  }
  return [...out].sort();
}

/**
 * Where a named path may live: from the repository root when it starts at a top-level folder; under src/ when it
 * starts at a folder of src/, where a module may be named without its `.ts` (a folder such as bench/ is both).
 */
function exists(path: string): boolean {
  const first = path.split('/')[0]!;
  if (TOP.includes(first) && existsSync(join(ROOT, path))) return true;
  if (!SRC_FOLDERS.includes(first)) return false;
  return existsSync(join(ROOT, 'src', path)) || (!/\.\w+$/.test(path) && existsSync(join(ROOT, 'src', `${path}.ts`)));
}

describe('the paths the contributor docs name', () => {
  it.each(DOCS)('%s names only paths that exist', (doc) => {
    const named = namedPaths(readFileSync(join(ROOT, doc), 'utf8'));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((p) => !ILLUSTRATIONS.includes(p) && !exists(p))).toEqual([]);
  });

  it('reads paths out of prose, code spans and code blocks, and skips placeholders', () => {
    const text = 'See `src/core/guard.ts`, then src/gate/ and (docs/x.md#top).\n```\nsrc/guards/<id>-<name>/  test/**/*.ts\n```\n';
    expect(namedPaths(text)).toEqual(['docs/x.md', 'src/core/guard.ts', 'src/gate/']);
  });

  it('reads paths relative to src/, but not the tail of a longer path, a package name or a URL', () => {
    const text =
      'The App calls `platforms/github/run-queued-job.ts`, then gate/run-gate; see owner/host/x, @host/pkg, ' +
      'https://example.com/host/a.ts and host/{a,b}.ts.';
    expect(namedPaths(text, ['platforms', 'gate', 'host'])).toEqual(['gate/run-gate', 'platforms/github/run-queued-job.ts']);
  });

  it('resolves a path relative to src/, with or without the .ts of a module, and rejects one that is gone', () => {
    expect(['platforms/github/app.ts', 'gate/run-gate', 'host/', 'src/host/pr-job.ts'].filter((p) => !exists(p))).toEqual([]);
    expect(['platforms/github/run-gate-job.ts', 'gate/run-gate.js', 'src/gate/run-gate'].filter(exists)).toEqual([]);
  });
});

describe('test/ mirrors src/', () => {
  /** Folders of test/ with no src/ counterpart on purpose: whole-system suites and shared test code. */
  const OWN = new Set(['test/architecture', 'test/e2e', 'test/helpers', 'test/package']);
  const folders = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => {
        const path = `${dir}/${d.name}`;
        if (OWN.has(path) || d.name === 'fixtures' || d.name === 'helpers') return [];
        return [path, ...folders(path)];
      });

  it('every folder of test/ tests the src/ folder of the same name', () => {
    expect(folders('test').filter((t) => !existsSync(join(ROOT, 'src', t.slice('test/'.length))))).toEqual([]);
  });
});
