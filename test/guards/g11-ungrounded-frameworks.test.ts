import { describe, expect, it } from 'vitest';
import { g11 } from '../../src/guards/g11-ungrounded-frameworks/index.js';
import { psi } from '../../src/guards/psi/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

const RUST_CLI = {
  'Cargo.toml': '[package]\nname = "grepx"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nclap = "4"\nserde = "1"\n',
  'src/main.rs': 'fn main() {}\n',
  'README.md': '# grepx\n',
};
const JS_APP = {
  'package.json': JSON.stringify({
    name: 'web',
    dependencies: { 'react-dom': '^18', '@reduxjs/toolkit': '^2', 'eslint-plugin-import': '^2' },
  }),
  'src/app.jsx': 'export const App = () => null;\n',
  'README.md': '# web\n',
};

async function run(base: Record<string, FileContent>, pr: Record<string, FileContent>) {
  return findingsOf(await gate(prRepo(base, pr), [g11]), 'G11');
}

describe('G11 ungrounded frameworks', () => {
  it('flags a Rust CLI whose new docs claim a React/Redux frontend', async () => {
    const doc = '# Architecture\n\nThe dashboard is a React frontend with Redux Toolkit for state.\n\nWe also use React hooks.\n';
    const findings = await run(RUST_CLI, { 'docs/architecture.md': doc });
    expect(findings.map((f) => f.evidence?.framework)).toEqual(['react', 'redux']);
    expect(findings[0]).toMatchObject({ category: 'ungrounded-framework', severity: 'risk', line: 3 });
    expect(findings[0]!.message).toContain('also on line 5');
    expect(findings[0]!.message).toContain('clap');
  });

  it('does not fire on plain English that looks like framework names', async () => {
    const doc = [
      '# Usage',
      '',
      'Next, read the next section. Click the button, then click Next and Back to move around.',
      'We react to file changes quickly; express your intent with flags. It is a solid choice.',
      'Run `echo hello` to test. The search runs at warp speed, and results express delivery dates.',
      'Express shipping is not a thing here. Bootstrap the config with `grepx init`.',
      'React quickly to errors: the CLI prints them in red. American Express cards are not involved.',
    ].join('\n');
    expect(await run(RUST_CLI, { 'docs/usage.md': doc })).toEqual([]);
  });

  it('does not count negated or comparative mentions', async () => {
    const doc =
      '# Why\n\nUnlike React, we render in the terminal. This is not a Vue app, it works without Redux.\nUse this instead of Angular. It is similar to Svelte in spirit.\n';
    expect(await run(RUST_CLI, { 'WHY.md': doc })).toEqual([]);
  });

  it('counts ambiguous names only in a framework context', async () => {
    const doc =
      '# Server\n\nThe API is built with Express and the docs site uses the Click framework.\nWe deploy the Next.js preview too.\n';
    const findings = await run(RUST_CLI, { 'docs/server.md': doc });
    expect(findings.map((f) => `${String(f.evidence?.framework)}:${String(f.evidence?.literal)}`)).toEqual([
      'express:Express',
      'click:Click',
      'next:Next.js',
    ]);
  });

  it('grounds frameworks by declared packages, not by loose substrings', async () => {
    const doc = '# Web\n\nBuilt with React and Redux. The API runs on the Gin framework.\n';
    const findings = await run(JS_APP, { 'README.md': `# web\n${doc}` });
    // react-dom grounds React and @reduxjs/toolkit grounds Redux; "eslint-plugin-import" must not ground Gin
    expect(findings.map((f) => f.evidence?.framework)).toEqual(['gin']);
  });

  it('grounds a framework the PR itself adds to the manifest', async () => {
    const base = { 'requirements.txt': 'requests==2.31\n', 'app.py': 'print(1)\n', 'README.md': '# app\n' };
    const pr = { 'requirements.txt': 'requests==2.31\nfastapi==0.110\n', 'README.md': '# app\n\nThe HTTP API is served by FastAPI.\n' };
    expect(await run(base, pr)).toEqual([]);
  });

  it('only looks at lines the PR added', async () => {
    const base = { ...RUST_CLI, 'README.md': '# grepx\n\nOld text about a React port.\n' };
    const pr = { 'README.md': '# grepx\n\nOld text about a React port.\n\nNew: a faster matcher.\n' };
    expect(await run(base, pr)).toEqual([]);
  });

  it('counts code blocks only when the repo could run their language', async () => {
    const doc = [
      '# Examples',
      '',
      '```jsx',
      "import { configureStore } from '@reduxjs/toolkit';",
      "import { Router } from 'express';",
      '```',
      '',
      '```bash',
      'npm install react express',
      'echo "Next"',
      '```',
    ].join('\n');
    const js = await run(JS_APP, { 'docs/examples.md': doc });
    expect(js.map((f) => `${String(f.evidence?.framework)}:${f.line}`)).toEqual(['express:5']);
    expect(js[0]!.message).toContain('in a code example');
    // the same jsx block in a Rust-only repo is not code the repo could run
    expect(await run(RUST_CLI, { 'docs/examples.md': doc })).toEqual([]);
  });

  it('ignores inline code, URLs and link targets', async () => {
    const doc = '# Links\n\nSee `React.render` and https://github.com/facebook/react or [the page](https://vuejs.org/Vue).\n';
    expect(await run(RUST_CLI, { 'docs/links.md': doc })).toEqual([]);
  });

  it('does not read requirements.txt or CMakeLists.txt as docs', async () => {
    const report = await gate(prRepo(RUST_CLI, { 'requirements.txt': 'Django==5.0\n', 'CMakeLists.txt': '# Built with React\n' }), [g11]);
    expect(report.guards.find((g) => g.id === 'G11')?.status).toBe('skipped');
  });

  it('reads RST docs and "React Fiber" does not mean the Go Fiber framework', async () => {
    const rst = 'Design\n======\n\nThe UI uses React Fiber scheduling.\n\n.. code-block:: bash\n\n   echo Gin\n';
    const findings = await run(JS_APP, { 'docs/design.rst': rst });
    expect(findings).toEqual([]);
  });

  it('stays quiet in a repository without any manifest', async () => {
    expect(await run({ 'README.md': '# notes\n' }, { 'react.md': '# Notes\n\nReact and Vue notes.\n' })).toEqual([]);
  });
});

describe('G11 and Ψ: the repository own names are grounded', () => {
  it('a Go module whose path is the framework (its own docs say "Fiber supports …") is grounded', async () => {
    const base = { 'go.mod': 'module github.com/gofiber/fiber/v3\n\ngo 1.22\n', 'app.go': 'package fiber\n', 'README.md': '# Fiber\n' };
    const doc = '# Routing\n\nFiber supports route groups. Built with Fiber, your handlers stay small.\n';
    expect(await run(base, { 'docs/routing.md': doc })).toEqual([]);
  });

  it('the repository name from the origin remote grounds the project talking about itself', async () => {
    const base = {
      'pyproject.toml': '[project]\nname = "asgi-kit"\nversion = "1"\ndependencies = ["anyio"]\n',
      'src/kit.py': 'x = 1\n',
      'README.md': '# kit\n',
    };
    const doc = '# Kit\n\nStarlette supports middleware; this project is Starlette at heart.\n';
    const plain = prRepo(base, { 'docs/index.md': doc });
    expect(findingsOf(await gate(plain, [g11]), 'G11').map((f) => f.evidence?.framework)).toEqual(['starlette']);
    const named = prRepo(base, { 'docs/index.md': doc });
    named.git('remote', 'add', 'origin', 'https://github.com/example/starlette.git');
    expect(findingsOf(await gate(named, [g11]), 'G11')).toEqual([]);
  });

  it('workspace package names count, scoped or not', async () => {
    const base = {
      'package.json': JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'] }),
      'packages/core/package.json': JSON.stringify({ name: '@acme/koa', version: '1.0.0' }),
      'packages/core/index.js': 'module.exports = {};\n',
    };
    expect(await run(base, { 'docs/guide.md': '# Guide\n\nKoa middleware composes.\n' })).toEqual([]);
  });

  it('an ungrounded framework name alone makes Ψ a risk, never a fail', async () => {
    const report = await gate(prRepo(RUST_CLI, { 'docs/ui.md': '# UI\n\nThe dashboard uses React and Vue.\n' }), [g11, psi]);
    const low = findingsOf(report, 'psi');
    expect(low).toHaveLength(1);
    expect(low[0]).toMatchObject({ category: 'low-psi', severity: 'risk' });
    expect(findingsOf(report, 'G11').every((f) => f.severity === 'risk')).toBe(true);
    expect(report.decision.outcome).toBe('ADVISE');
  });
});
