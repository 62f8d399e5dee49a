import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The contributor docs name files a newcomer opens first; a moved file must take its mention along. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = ['CONTRIBUTING.md', 'docs/architecture.md'];

/** The guard the CONTRIBUTING walkthrough builds as an example (it says the guard does not exist). */
const ILLUSTRATIONS = ['src/guards/g18-debugger/index.ts', 'test/guards/g18-debugger.test.ts'];

/**
 * The repository paths a Markdown text names: every word that starts at a top-level folder of the repository
 * (`src/core/guard.ts`, `test/helpers/`, `docs/x.md#anchor`), in code spans, code blocks and prose alike.
 * Placeholders (`src/guards/<id>-<name>/`) and globs are not paths and are left out.
 */
function namedPaths(markdown: string): string[] {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/(?<![\w./'"-])((?:src|test|docs|schemas|bench|action|\.ci)\/[\w./<>*-]*)/g)) {
    const path = m[1]!.replace(/#.*$/, '').replace(/[.,:;]+$/, '');
    if (/[<>*]/.test(path)) continue;
    out.add(path);
  }
  return [...out].sort();
}

describe('the paths the contributor docs name', () => {
  it.each(DOCS)('%s names only paths that exist', (doc) => {
    const named = namedPaths(readFileSync(join(ROOT, doc), 'utf8'));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((p) => !ILLUSTRATIONS.includes(p) && !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('reads paths out of prose, code spans and code blocks, and skips placeholders', () => {
    const text = 'See `src/core/guard.ts`, then src/gate/ and (docs/x.md#top).\n```\nsrc/guards/<id>-<name>/  test/**/*.ts\n```\n';
    expect(namedPaths(text)).toEqual(['docs/x.md', 'src/core/guard.ts', 'src/gate/']);
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
