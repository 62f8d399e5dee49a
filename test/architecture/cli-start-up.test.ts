import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadedAtStart } from './import-graph.js';

/**
 * Issue 20, item 7: the CLI loads only what a command needs. Checked on the import graph (what Node loads
 * before the first line runs), never on a clock; `npm run bench` measures the time.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('what the CLI loads before it runs', () => {
  it('`slopgate --version`, `help` and `<command> --help` load the dispatcher and the help text only (no package, no pipeline)', () => {
    const { files, packages } = loadedAtStart(ROOT, 'src/cli.ts');
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual([]);
    const allowed = (f: string) =>
      f === 'src/cli.ts' || f.startsWith('src/core/') || f === 'src/routing/fail-level.ts' || /^src\/cli\/(main|help|is-main)\.ts$/.test(f);
    expect(files.filter((f) => !allowed(f))).toEqual([]);
    expect(files).toContain('src/cli/main.ts');
  });

  it('`slopgate check` loads neither the App, nor the store, nor a queue (the store only with --db, through import())', () => {
    const { files, packages } = loadedAtStart(ROOT, 'src/cli/check.ts');
    expect(files.filter((f) => /^src\/(platforms|host|store|queue)\//.test(f))).toEqual([]);
    expect(packages.filter((p) => /^(probot|@octokit\/|pg$|pg-boss|@electric-sql\/)/.test(p))).toEqual([]);
    expect(files).toContain('src/gate/run-gate.ts');
  });

  it('sees what a module loads, and leaves out type-only imports and import()', () => {
    const { files, packages } = loadedAtStart(ROOT, 'src/cli/store-options.ts');
    // store-options.ts imports the store's options as a type only: nothing of the store loads with it.
    expect(files).toEqual(['src/cli/store-options.ts']);
    expect(packages).toEqual(['node:path']);
    const main = loadedAtStart(ROOT, 'src/cli/main.ts').files;
    expect(main).not.toContain('src/platforms/github/worker-entry.ts'); // `slopgate worker` imports it with import()
  });
});
