// esbuild settings shared by the bundles slopgate ships: the CLI's (build/cli.mjs) and the GitHub
// Action's (action/build.mjs). Each bundle is ES modules for Node, split into chunks that sit beside
// the entry points: the guard pool starts './guard-worker.js' from beside its own module.
import { build } from 'esbuild';

/**
 * Bundles `entryPoints` ({ name: 'src/….ts' }) into `out`; packages named in `external` are left to
 * be imported from node_modules at run time. Returns esbuild's metafile.
 */
export async function bundleForNode({ root, out, entryPoints, external = [] }) {
  const result = await build({
    absWorkingDir: root,
    entryPoints,
    outdir: out,
    bundle: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    format: 'esm',
    platform: 'node',
    // ES module builds first: some UMD builds (jsonc-parser's) require() their parts at run time.
    mainFields: ['module', 'main'],
    target: 'node20.18',
    outExtension: { '.js': '.js' },
    external,
    metafile: true,
    legalComments: 'linked',
    logLevel: 'warning',
    // CommonJS dependencies inside an ES module bundle still call require() and read __dirname.
    banner: {
      js: [
        "import { createRequire as __sgCreateRequire } from 'node:module';",
        "import { fileURLToPath as __sgFileURLToPath } from 'node:url';",
        "import { dirname as __sgDirname } from 'node:path';",
        'const require = __sgCreateRequire(import.meta.url);',
        'const __filename = __sgFileURLToPath(import.meta.url);',
        'const __dirname = __sgDirname(__filename);',
      ].join('\n'),
    },
  });
  return result.metafile;
}

/** "N files, X MiB of JavaScript" for a build's log line. */
export function bundleSize(metafile) {
  const bytes = Object.values(metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  return `${Object.keys(metafile.outputs).length} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB of JavaScript`;
}
