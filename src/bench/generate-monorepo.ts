import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

function put(dir: string, path: string, text: string): void {
  const abs = join(dir, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, text);
}

const NPM_DEPS = ['react', 'redux', '@reduxjs/toolkit', 'express', 'vite', 'prettier', 'eslint', 'tailwindcss', 'zod', 'lodash'];

/**
 * A monorepo of `packages` packages across four ecosystems (package.json, pyproject.toml, Cargo.toml,
 * go.mod, each with sources), whose `pr` branch changes `changed` docs and JS/TS configs: about a
 * third of the docs mention frameworks, links and code blocks; the configs name plugins.
 */
export function generateMonorepoPr(packages = 400, changed = 1000): string {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-monorepo-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'bench@slopgate.invalid');
  git('config', 'user.name', 'bench');
  put(
    dir,
    'package.json',
    JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'], devDependencies: { prettier: '^3', vite: '^6' } }, null, 2),
  );
  for (let i = 0; i < packages; i++) {
    const base = `packages/p${i}`;
    switch (i % 4) {
      case 0:
        put(
          dir,
          `${base}/package.json`,
          JSON.stringify(
            {
              name: `@mono/p${i}`,
              dependencies: Object.fromEntries(NPM_DEPS.slice(0, 1 + (i % NPM_DEPS.length)).map((d) => [d, '^1.0.0'])),
            },
            null,
            2,
          ),
        );
        for (let k = 0; k < 20; k++) put(dir, `${base}/src/m${k}.ts`, `export const v${k} = ${k};\n`);
        break;
      case 1:
        put(
          dir,
          `${base}/pyproject.toml`,
          `[project]\nname = "p${i}"\nversion = "1.0"\ndependencies = ["django>=4", "requests[security]>=2; python_version>'3.8'"]\n`,
        );
        for (let k = 0; k < 20; k++) put(dir, `${base}/p${i}/m${k}.py`, `V${k} = ${k}\n`);
        break;
      case 2:
        put(
          dir,
          `${base}/Cargo.toml`,
          `[package]\nname = "p${i}"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nclap = "4"\nserde = { version = "1", features = ["derive"] }\n`,
        );
        for (let k = 0; k < 20; k++) put(dir, `${base}/src/m${k}.rs`, `pub const V${k}: i32 = ${k};\n`);
        break;
      default:
        put(dir, `${base}/go.mod`, `module example.com/p${i}\n\ngo 1.19\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n)\n`);
        for (let k = 0; k < 20; k++) put(dir, `${base}/m${k}.go`, `package p${i}\n\nconst V${k} = ${k}\n`);
    }
  }
  const doc = (i: number, v: number) =>
    `# Package ${i}\n\nVersion ${v}. Built with React and Redux; the CLI uses clap.\n\n` +
    '```ts\nimport { v0 } from "./src/m0";\nconsole.log(v0);\n```\n\n' +
    `See [the guide](../../README.md) and [missing](./nope-${v}.md).\n` +
    'Prose line.\n'.repeat(30);
  const config = (i: number, v: number) =>
    `import { defineConfig } from 'vite';\nimport react from '@vitejs/plugin-react';\n\nexport default defineConfig({ plugins: [react()], server: { port: ${3000 + v + i} } });\n`;
  const writeChanged = (v: number) => {
    for (let i = 0; i < changed; i++) {
      if (i % 3 === 2) put(dir, `packages/p${i % packages}/vite.config.ts`, config(i, v));
      else put(dir, `packages/p${i % packages}/docs/page${i}.md`, doc(i, v));
    }
  };
  writeChanged(1);
  put(dir, 'README.md', '# mono\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  git('checkout', '-q', '-b', 'pr');
  writeChanged(2);
  git('add', '-A');
  git('commit', '-q', '-m', 'pr');
  return dir;
}
