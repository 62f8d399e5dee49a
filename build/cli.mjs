// Builds the CLI's bundle, dist/bin/slopgate.js (the `slopgate` command) with the guard thread's entry
// and shared chunks beside it. `npm run build` runs it after tsc.
//
// Why a bundle: a new `slopgate` process loads about 500 modules in its main thread and again in its
// guard thread (slopgate's own files, zod's, the parsers'); one bundle starts the gate about a quarter
// of a second sooner, which is a tenth of the gate's cost on a ten-second suite (docs/test-gate.md,
// "What a run costs"). The App's server and worker are long-lived and run the tsc output in dist/.
//
// Packages stay external (imported from node_modules) when they carry files beside their code or load
// parts at run time (PGlite's WebAssembly, web-tree-sitter's runtime, pg's optional native binding),
// or when the CLI needs them only for commands that start once (probot and Octokit for `worker`, the
// TypeScript compiler for G17, loaded on demand).
/* global console */
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForNode, bundleSize } from './bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'bin');

await rm(out, { recursive: true, force: true });
const metafile = await bundleForNode({
  root,
  out,
  entryPoints: { slopgate: 'src/cli.ts', 'guard-worker': 'src/gate/guard-worker.ts' },
  external: ['@electric-sql/pglite', 'web-tree-sitter', 'pg', 'pg-boss', 'probot', '@octokit/*', 'typescript'],
});
console.log(`dist/bin: ${bundleSize(metafile)}`);
