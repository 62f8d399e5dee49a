// Builds the GitHub Action's bundle: action/dist/index.js (+ the guard thread's entry and shared
// chunks) and the WebAssembly files the parsers load at run time. A JavaScript action gets no
// `npm install`, so everything it imports is inside the bundle; the config schemas are read from
// schemas/ at the repository root, which every `uses: <owner>/slopgate@<tag>` checkout contains.
// Run with `npm run build:action`. action.yml does not use it (it compiles src/ on the runner); the bundle
// is for testing the entry as one file (SLOPGATE_ACTION_ENTRY=action/dist/index.js).
/* global console */
import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForNode, bundleSize } from '../build/bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'action', 'dist');
const require = createRequire(join(root, 'package.json'));

await rm(out, { recursive: true, force: true });
const metafile = await bundleForNode({
  root,
  out,
  entryPoints: { index: 'src/platforms/actions/main.ts', 'guard-worker': 'src/gate/guard-worker.ts' },
});

// web-tree-sitter loads its runtime from beside the module that imports it (the bundle).
await cp(require.resolve('web-tree-sitter/tree-sitter.wasm'), join(out, 'tree-sitter.wasm'));
// The grammars: src/repo/languages.ts resolves '@vscode/tree-sitter-wasm/package.json' from the bundle.
const grammarPkg = dirname(require.resolve('@vscode/tree-sitter-wasm/package.json'));
const grammarOut = join(out, 'node_modules', '@vscode', 'tree-sitter-wasm');
await mkdir(join(grammarOut, 'wasm'), { recursive: true });
await cp(join(grammarPkg, 'package.json'), join(grammarOut, 'package.json'));
await cp(join(grammarPkg, 'LICENSE'), join(grammarOut, 'LICENSE'));
for (const f of await readdir(join(grammarPkg, 'wasm'))) {
  if (/^tree-sitter-.+\.wasm$/.test(f)) await cp(join(grammarPkg, 'wasm', f), join(grammarOut, 'wasm', f));
}
// pyright: G17's Python probe resolves 'pyright/package.json' from the bundle and binds the package into the sandbox.
const pyrightPkg = dirname(require.resolve('pyright/package.json'));
const pyrightOut = join(out, 'node_modules', 'pyright');
await mkdir(pyrightOut, { recursive: true });
for (const f of ['package.json', 'index.js', 'LICENSE.txt', 'dist'])
  await cp(join(pyrightPkg, f), join(pyrightOut, f), { recursive: true });
// The bundle is ESM whatever the nearest package.json says.
await writeFile(join(out, 'package.json'), JSON.stringify({ type: 'module', private: true }, null, 2) + '\n');

console.log(`action/dist: ${bundleSize(metafile)}`);
