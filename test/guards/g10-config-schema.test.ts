import { describe, expect, it } from 'vitest';
import { g10 } from '../../src/guards/g10-config-schema/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';
import type { FileContent } from '../helpers/git-repo.js';

async function g10Findings(base: Record<string, FileContent>, pr: Record<string, FileContent>) {
  const report = await gate(prRepo(base, pr), [g10]);
  return findingsOf(report, 'G10');
}

describe('G10 config schema', () => {
  it('flags a tsconfig target the compiler does not know, at the line of the key', async () => {
    const tsconfig = '{\n  // strict build\n  "compilerOptions": {\n    "strict": true,\n    "target": "es2099",\n  },\n}\n';
    const [f, ...rest] = await g10Findings({ 'README.md': 'x\n' }, { 'tsconfig.json': tsconfig });
    expect(rest).toHaveLength(0);
    expect(f).toMatchObject({ category: 'schema-invalid', severity: 'fail', path: 'tsconfig.json', line: 5 });
    expect(f!.message).toContain('compilerOptions.target');
    expect(f!.message).toContain('"es2022"');
    expect(f!.message).toContain('found "es2099"');
  });

  it('accepts a JSONC tsconfig with comments, trailing commas and an upper-case target', async () => {
    const tsconfig = '{\n  /* base */\n  "compilerOptions": { "target": "ES2022", "module": "NodeNext", },\n  "include": ["src"],\n}\n';
    expect(await g10Findings({ 'README.md': 'x\n' }, { 'packages/a/tsconfig.build.json': tsconfig })).toEqual([]);
  });

  it('flags a workflow job without runs-on and names the missing key', async () => {
    const wf = 'name: ci\non:\n  push:\n    branches: [main]\njobs:\n  build:\n    steps:\n      - run: npm test\n';
    const [f] = await g10Findings({ 'README.md': 'x\n' }, { '.github/workflows/ci.yml': wf });
    expect(f).toMatchObject({ path: '.github/workflows/ci.yml', line: 6 });
    expect(f!.message).toContain('jobs.build.runs-on');
    expect(f!.message).toContain('missing');
  });

  it('reads `on:` in a workflow as the key "on" (YAML 1.2), so a valid workflow passes', async () => {
    const wf =
      'on: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm test\n';
    expect(await g10Findings({ 'README.md': 'x\n' }, { '.github/workflows/test.yaml': wf })).toEqual([]);
  });

  it('flags a dependabot entry with an unknown package-ecosystem', async () => {
    const dep = 'version: 2\nupdates:\n  - package-ecosystem: "npmjs"\n    directory: "/"\n    schedule:\n      interval: "weekly"\n';
    const [f] = await g10Findings({ 'README.md': 'x\n' }, { '.github/dependabot.yml': dep });
    expect(f).toMatchObject({ line: 3 });
    expect(f!.message).toContain('updates[0].package-ecosystem');
    expect(f!.message).toContain('"npm"');
  });

  it('flags `edition = 2021` written as an integer in Cargo.toml (the schema wants a string)', async () => {
    const cargo = '[package]\nname = "cli"\nversion = "0.1.0"\nedition = 2021\n\n[dependencies]\nclap = "4"\n';
    const [f] = await g10Findings({ 'README.md': 'x\n' }, { 'Cargo.toml': cargo });
    expect(f).toMatchObject({ path: 'Cargo.toml', line: 4 });
    expect(f!.message).toContain('package.edition');
    expect(f!.message).toContain('string');
    expect(f!.message).toContain('found 2021');
  });

  it('accepts a correct Cargo.toml with a quoted edition and lint tables (external $refs resolve offline)', async () => {
    const cargo =
      '[package]\nname = "cli"\nversion = "0.1.0"\nedition = "2021"\n\n[lints.rust]\nunsafe_code = "forbid"\n\n[dependencies]\nclap = { version = "4", features = ["derive"] }\n';
    expect(await g10Findings({ 'README.md': 'x\n' }, { 'Cargo.toml': cargo })).toEqual([]);
  });

  it('flags an unknown key in .github/slopgate.yml against slopgate’s own schema', async () => {
    const cfg = 'strict: true\nlinks:\n  online: true\n  retries: 3\n';
    const [f] = await g10Findings({ 'README.md': 'x\n' }, { '.github/slopgate.yml': cfg });
    expect(f).toMatchObject({ path: '.github/slopgate.yml', line: 4 });
    expect(f!.message).toContain('has an unknown key `links.retries`');
    expect(f!.message).toContain('timeoutMs');
  });

  it('parses an extension-less .prettierrc written in YAML and flags a wrong option type', async () => {
    const [f] = await g10Findings({ 'README.md': 'x\n' }, { '.prettierrc': 'semi: false\ntabWidth: "two"\n' });
    expect(f).toMatchObject({ path: '.prettierrc', line: 2 });
    expect(f!.message).toContain('tabWidth');
  });

  it('accepts an extension-less .prettierrc written in JSON', async () => {
    expect(await g10Findings({ 'README.md': 'x\n' }, { '.prettierrc': '{ "semi": false, "singleQuote": true }\n' })).toEqual([]);
  });

  it('resolves package.json → prettierrc $ref offline and flags a bad embedded prettier option', async () => {
    const base = { 'package.json': '{\n  "name": "app",\n  "version": "1.0.0"\n}\n' };
    const pr = { 'package.json': '{\n  "name": "app",\n  "version": "1.0.0",\n  "prettier": { "printWidth": "wide" }\n}\n' };
    const [f] = await g10Findings(base, pr);
    expect(f!.message).toContain('prettier.printWidth');
    expect(f!.line).toBe(4);
  });

  it('checks workspace package.json files too (a version written as a number)', async () => {
    const [f] = await g10Findings({ 'README.md': 'x\n' }, { 'packages/ui/package.json': '{ "name": "ui", "version": 2 }\n' });
    expect(f).toMatchObject({ path: 'packages/ui/package.json' });
    expect(f!.message).toContain('`version`');
  });

  it('does not blame the PR for a schema error already present at base', async () => {
    const base = { 'tsconfig.json': '{ "compilerOptions": { "target": "es2099" } }\n' };
    const pr = { 'tsconfig.json': '{ "compilerOptions": { "target": "es2099", "strict": true } }\n' };
    expect(await g10Findings(base, pr)).toEqual([]);
  });

  it('leaves a file that does not parse to G2 and skips fixture folders', async () => {
    const pr = { 'tsconfig.json': '{ "compilerOptions": { "target": \n', 'test/fixtures/bad/package.json': '{ "version": 2 }\n' };
    expect(await g10Findings({ 'README.md': 'x\n' }, pr)).toEqual([]);
  });

  it('flags an .eslintrc.json with comments whose env value has the wrong type', async () => {
    const [f] = await g10Findings({ 'README.md': 'x\n' }, { '.eslintrc.json': '{\n  // env\n  "env": { "node": "yes" }\n}\n' });
    expect(f!.message).toContain('env.node');
    expect(f!.line).toBe(3);
  });

  describe('Python tool config and the other well-known configs', () => {
    const PY = { 'README.md': 'x\n', 'src/pkg/__init__.py': '' };

    it('a .ruff.toml that nests [tool.ruff] is an unknown key `tool` (ruff refuses the file)', async () => {
      const ruff = '[tool.ruff]\nline-length = 100\n\n[tool.ruff.lint]\nselect = ["E", "F"]\n';
      const [f, ...rest] = await g10Findings(PY, { '.ruff.toml': ruff });
      expect(rest).toEqual([]);
      expect(f).toMatchObject({ category: 'schema-invalid', severity: 'fail', path: '.ruff.toml', line: 1 });
      expect(f!.message).toContain('unknown key `tool`');
      expect(f!.evidence).toMatchObject({ schema: 'ruff.schema.json' });
    });

    it('`fixable = true` where ruff wants a list, inside pyproject [tool.ruff.lint]', async () => {
      const pyproject = '[project]\nname = "pkg"\nversion = "0.1.0"\n\n[tool.ruff.lint]\nselect = ["E", "F", "I"]\nfixable = true\n';
      const [f] = await g10Findings(PY, { 'pyproject.toml': pyproject });
      expect(f).toMatchObject({ path: 'pyproject.toml', line: 7 });
      expect(f!.message).toContain('tool.ruff.lint.fixable');
      expect(f!.message).toContain('found boolean');
    });

    it('Poetry dependencies written as an array (PEP 621 style) under [tool.poetry]', async () => {
      const pyproject =
        '[tool.poetry]\nname = "pkg"\nversion = "0.1.0"\ndescription = ""\nauthors = []\ndependencies = ["requests>=2", "click"]\n';
      const [f] = await g10Findings(PY, { 'pyproject.toml': pyproject });
      expect(f).toMatchObject({ path: 'pyproject.toml', line: 6 });
      expect(f!.message).toContain('tool.poetry.dependencies');
      expect(f!.message).toContain('found array');
    });

    it('valid pyproject with project, build-system, ruff, mypy, pytest, coverage and unknown tools passes', async () => {
      const pyproject = [
        '[build-system]',
        'requires = ["hatchling"]',
        'build-backend = "hatchling.build"',
        '',
        '[project]',
        'name = "pkg"',
        'dynamic = ["version"]',
        'requires-python = ">=3.9"',
        'dependencies = ["anyio>=4"]',
        '',
        '[project.optional-dependencies]',
        'dev = ["pytest"]',
        '',
        '[tool.hatch.build.targets.wheel]',
        'sources = ["src"]',
        '',
        '[tool.ruff.lint]',
        'select = ["E", "F", "UP", "TCH", "PGH002"]',
        'fixable = ["ALL"]',
        '',
        '[tool.mypy]',
        'strict = true',
        '',
        '[tool.pytest.ini_options]',
        'addopts = "-ra"',
        'testpaths = ["tests"]',
        '',
        '[tool.coverage.run]',
        'branch = true',
        '',
        '[tool.my-own-tool]',
        'anything = 1',
        '',
      ].join('\n');
      expect(await g10Findings(PY, { 'pyproject.toml': pyproject })).toEqual([]);
    });

    it('.pre-commit-config.yaml: an unquoted numeric rev fails, a valid config passes', async () => {
      const good =
        'repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.6.0\n    hooks:\n      - id: ruff\n        args: [--fix]\n';
      expect(await g10Findings(PY, { '.pre-commit-config.yaml': good })).toEqual([]);
      const bad = 'repos:\n  - repo: https://github.com/psf/black\n    rev: 24.8\n    hooks:\n      - id: black\n';
      const [f] = await g10Findings(PY, { '.pre-commit-config.yaml': bad });
      expect(f).toMatchObject({ path: '.pre-commit-config.yaml', category: 'schema-invalid' });
      expect([f!.evidence?.path, ...((f!.evidence?.others ?? []) as string[])]).toContain('repos[0].rev');
    });

    it('mkdocs.yml with !!python/name and !ENV tags passes; an unknown theme key type fails', async () => {
      const mk = [
        'site_name: Pkg',
        'theme:',
        '  name: material',
        'markdown_extensions:',
        '  - pymdownx.superfences:',
        '      custom_fences:',
        '        - name: mermaid',
        '          class: mermaid',
        '          format: !!python/name:pymdownx.superfences.fence_code_format',
        'copyright: !ENV [COPYRIGHT, "Pkg authors"]',
        'nav:',
        '  - Home: index.md',
        '',
      ].join('\n');
      expect(await g10Findings(PY, { 'mkdocs.yml': mk })).toEqual([]);
      const [f] = await g10Findings(PY, { 'mkdocs.yml': `${mk}strict: maybe\n` });
      expect(f!.message).toContain('`strict`');
    });

    it('action.yml: a composite action step without `shell` fails; boolean input defaults pass', async () => {
      const good =
        'name: a\ndescription: b\ninputs:\n  fast:\n    description: c\n    default: false\nruns:\n  using: composite\n  steps:\n    - run: echo hi\n      shell: bash\n';
      expect(await g10Findings(PY, { 'action.yml': good })).toEqual([]);
      const [f] = await g10Findings(PY, { '.github/actions/setup/action.yml': good.replace('      shell: bash\n', '') });
      expect(f).toMatchObject({ path: '.github/actions/setup/action.yml' });
      expect(f!.message).toContain('shell');
    });

    it('workflow triggers may name a single branch as a string (GitHub accepts it)', async () => {
      const wf =
        'on:\n  push:\n    branches: main\n    tags: "*"\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ok\n';
      expect(await g10Findings(PY, { '.github/workflows/ci.yml': wf })).toEqual([]);
    });

    it('rust-toolchain.toml, renovate.json and issue forms are checked; the issue-template config.yml is not a form', async () => {
      const found = await g10Findings(PY, {
        'rust-toolchain.toml': '[toolchain]\nchannel = "stable"\ncomponents = "clippy"\n',
        '.github/ISSUE_TEMPLATE/config.yml': 'blank_issues_enabled: false\n',
        '.github/ISSUE_TEMPLATE/bug.yml':
          'name: Bug\ndescription: x\nbody:\n  - type: textarea\n    id: what\n    attributes:\n      label: What happened?\n',
      });
      expect(found.map((f) => f.path)).toEqual(['rust-toolchain.toml']);
      expect(found[0]!.message).toContain('toolchain.components');
    });
  });
});
