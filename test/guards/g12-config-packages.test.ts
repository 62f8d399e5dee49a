import { describe, expect, it } from 'vitest';
import { g12 } from '../../src/guards/g12-config-packages/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

const pkg = (devDependencies: Record<string, string>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'web', version: '1.0.0', devDependencies, ...extra }, null, 2) + '\n';

async function run(base: Record<string, FileContent>, pr: Record<string, FileContent>) {
  return findingsOf(await gate(prRepo(base, pr), [g12]), 'G12');
}

describe('G12 ungrounded config packages', () => {
  it('flags a prettier config naming a plugin the repo never installed', async () => {
    const cfg =
      "/** @type {import('prettier').Config} */\nexport default {\n  semi: false,\n  plugins: ['prettier-plugin-tailwindcss'],\n};\n";
    const [f, ...rest] = await run({ 'package.json': pkg({ prettier: '^3' }) }, { 'prettier.config.mjs': cfg });
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ category: 'ungrounded-package', severity: 'fail', path: 'prettier.config.mjs', line: 4 });
    expect(f!.message).toContain('`prettier-plugin-tailwindcss`');
    expect(f!.message).toContain('declared: prettier');
  });

  it('passes the same prettier config when the plugin is declared', async () => {
    const cfg = "module.exports = { plugins: ['prettier-plugin-tailwindcss'] };\n";
    expect(
      await run({ 'package.json': pkg({ prettier: '^3', 'prettier-plugin-tailwindcss': '^0.6' }) }, { '.prettierrc.cjs': cfg }),
    ).toEqual([]);
  });

  it('reads only the name of a babel preset tuple, never its option strings', async () => {
    const cfg = "module.exports = {\n  presets: [['@babel/preset-env', { targets: 'defaults', modules: 'auto' }], '@babel/react'],\n};\n";
    expect(
      await run({ 'package.json': pkg({ '@babel/preset-env': '^7', '@babel/preset-react': '^7' }) }, { 'babel.config.js': cfg }),
    ).toEqual([]);
  });

  it('expands babel shorthand names before looking them up', async () => {
    const cfg = "module.exports = {\n  presets: ['@babel/env'],\n  plugins: ['macros', ['@emotion', { sourceMap: true }]],\n};\n";
    const findings = await run({ 'package.json': pkg({ '@babel/preset-env': '^7' }) }, { 'babel.config.cjs': cfg });
    expect(findings.map((f) => `${String(f.evidence?.package)}<${String(f.evidence?.written)}>`)).toEqual([
      'babel-plugin-macros<macros>',
      '@emotion/babel-plugin<@emotion>',
    ]);
  });

  it('skips virtual ids, node builtins, relative paths, aliases and URLs', async () => {
    const cfg = [
      "import { defineConfig } from 'vite';",
      "import path from 'node:path';",
      "import fs from 'fs';",
      "import local from './plugins/local.js';",
      "import alias from '@/aliases';",
      "const v = 'virtual:my-module';",
      "export default defineConfig({ plugins: [local(), 'virtual:pwa-register', 'https://cdn.example.com/x.js'] });",
    ].join('\n');
    expect(await run({ 'package.json': pkg({ vite: '^5' }) }, { 'vite.config.ts': cfg })).toEqual([]);
  });

  it('ignores commented-out imports and requires', async () => {
    const cfg = "// import legacy from '@vitejs/plugin-legacy';\n/* const x = require('webpack-bundle-analyzer'); */\nexport default {};\n";
    expect(await run({ 'package.json': pkg({ vite: '^5' }) }, { 'vite.config.js': cfg })).toEqual([]);
  });

  it('finds dynamic import(), require.resolve and subpath imports, normalised to the package', async () => {
    const cfg =
      "module.exports = async () => ({\n  plugins: [require.resolve('prettier-plugin-organize-imports')],\n  overrides: (await import('@acme/shared-config/prettier')).default,\n});\n";
    const findings = await run({ 'package.json': pkg({ prettier: '^3' }) }, { 'prettier.config.cjs': cfg });
    expect(findings.map((f) => `${String(f.evidence?.package)}:${f.line}`)).toEqual([
      'prettier-plugin-organize-imports:2',
      '@acme/shared-config:3',
    ]);
  });

  it('only counts references the PR added to the file', async () => {
    const base = {
      'package.json': pkg({ vite: '^5' }),
      'vite.config.js': "import old from 'vite-plugin-old';\nexport default { plugins: [old()] };\n",
    };
    const pr = {
      'vite.config.js':
        "import old from 'vite-plugin-old';\nimport svgr from 'vite-plugin-svgr';\nexport default { plugins: [old(), svgr()] };\n",
    };
    const findings = await run(base, pr);
    expect(findings.map((f) => f.evidence?.package)).toEqual(['vite-plugin-svgr']);
  });

  it('expands legacy .eslintrc plugin and extends shorthands', async () => {
    const cfg =
      "module.exports = {\n  parser: '@typescript-eslint/parser',\n  plugins: ['react'],\n  extends: ['eslint:recommended', 'plugin:@typescript-eslint/recommended', 'airbnb'],\n};\n";
    const findings = await run(
      { 'package.json': pkg({ eslint: '^8', 'eslint-plugin-react': '^7', '@typescript-eslint/parser': '^7' }) },
      { '.eslintrc.cjs': cfg },
    );
    expect(findings.map((f) => f.evidence?.package)).toEqual(['@typescript-eslint/eslint-plugin', 'eslint-config-airbnb']);
  });

  it('reads postcss object-form plugins by key', async () => {
    const cfg = 'module.exports = {\n  plugins: {\n    tailwindcss: {},\n    autoprefixer: {},\n  },\n};\n';
    const findings = await run({ 'package.json': pkg({ tailwindcss: '^3' }) }, { 'postcss.config.js': cfg });
    expect(findings.map((f) => `${String(f.evidence?.package)}:${f.line}`)).toEqual(['autoprefixer:4']);
  });

  it('grounds by any workspace package.json, local workspace packages, and vite shipped with vitest', async () => {
    const base = {
      'package.json': pkg({}, { workspaces: ['packages/*'] }),
      'packages/ui/package.json': JSON.stringify({ name: '@acme/ui', devDependencies: { vitest: '^2', '@vitejs/plugin-react': '^4' } }),
      'packages/tokens/package.json': JSON.stringify({ name: '@acme/tokens' }),
    };
    const cfg =
      "import { defineConfig } from 'vite';\nimport react from '@vitejs/plugin-react';\nimport tokens from '@acme/tokens/vite';\nexport default defineConfig({ plugins: [react(), tokens()] });\n";
    expect(await run(base, { 'packages/ui/vitest.config.mts': cfg })).toEqual([]);
  });

  it('stays quiet in a repository without package.json', async () => {
    expect(
      await run(
        { 'Cargo.toml': '[package]\nname = "x"\nversion = "0.1.0"\n' },
        { 'tailwind.config.js': "module.exports = { plugins: [require('@tailwindcss/forms')] };\n" },
      ),
    ).toEqual([]);
  });
});
