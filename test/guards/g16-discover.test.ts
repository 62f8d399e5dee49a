import { describe, expect, it } from 'vitest';
import { checksOfCommand, discoverChecks, type CheckTool, type DiscoveredCheck } from '../../src/guards/g16-project-checks/discover.js';

const discover = (files: Record<string, string>) => discoverChecks(new Map(Object.entries(files)));

/** tool → [source, inCi, enforced], for terse assertions. */
function summary(found: Map<CheckTool, DiscoveredCheck>): Record<string, [string, boolean, boolean]> {
  return Object.fromEntries([...found].map(([tool, c]) => [tool, [c.source, c.inCi, c.enforced]]));
}

const workflow = (...run: string[]) =>
  [
    'name: ci',
    'on: [pull_request]',
    'jobs:',
    '  lint:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    '      - uses: actions/checkout@v4',
    ...run.flatMap((r) => ['      - run: |', ...r.split('\n').map((l) => `          ${l}`)]),
    '',
  ].join('\n');

describe('G16 discovery: which checks the repository enforces', () => {
  it('workflow run: lines — gofmt -l inside test -z, go vet, cargo fmt --check, ruff, black, prettier, eslint, tsc', () => {
    const found = discover({
      '.github/workflows/ci.yml': workflow(
        'test -z "$(gofmt -l .)"\ngo vet ./...',
        'cargo fmt --all -- --check',
        'uv run ruff check .\nuv run ruff format --check .\npython -m black --check src',
        'npx prettier --check . && npx eslint src\nnpx tsc --noEmit -p .',
      ),
    });
    expect(summary(found)).toEqual({
      gofmt: ['.github/workflows/ci.yml', true, true],
      'go-vet': ['.github/workflows/ci.yml', true, true],
      rustfmt: ['.github/workflows/ci.yml', true, true],
      'ruff-check': ['.github/workflows/ci.yml', true, true],
      'ruff-format': ['.github/workflows/ci.yml', true, true],
      black: ['.github/workflows/ci.yml', true, true],
      prettier: ['.github/workflows/ci.yml', true, true],
      eslint: ['.github/workflows/ci.yml', true, true],
      tsc: ['.github/workflows/ci.yml', true, true],
    });
    expect(found.get('gofmt')!.line).toBe('test -z "$(gofmt -l .)"');
  });

  it('a rewriting formatter in CI is a check only when the same step then checks the tree for changes', () => {
    expect(summary(discover({ '.github/workflows/a.yml': workflow('go fmt ./...\ngit diff --exit-code') }))).toEqual({
      gofmt: ['.github/workflows/a.yml', true, true],
    });
    expect(summary(discover({ '.github/workflows/a.yml': workflow('go fmt ./...', 'cargo fmt') }))).toEqual({
      gofmt: ['.github/workflows/a.yml', true, false],
      rustfmt: ['.github/workflows/a.yml', true, false],
    });
  });

  it('well-known actions: actions-rust-lang/rustfmt, psf/black, pre-commit/action', () => {
    const wf = [
      'on: push',
      'jobs:',
      '  fmt:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - uses: actions-rust-lang/rustfmt@v1',
      '      - uses: psf/black@stable',
      '      - uses: pre-commit/action@v3.0.1',
      '',
    ].join('\n');
    const found = discover({
      '.github/workflows/fmt.yaml': wf,
      '.pre-commit-config.yaml':
        'repos:\n  - repo: https://github.com/dnephin/pre-commit-golang\n    rev: v0.5.1\n    hooks:\n      - id: go-fmt\n',
    });
    expect(summary(found)).toEqual({
      rustfmt: ['.github/workflows/fmt.yaml', true, true],
      black: ['.github/workflows/fmt.yaml', true, true],
      gofmt: ['.pre-commit-config.yaml', true, true],
    });
  });

  it('pre-commit: hook ids and local entries; in CI only when a workflow runs pre-commit or it declares pre-commit.ci', () => {
    const config = [
      'repos:',
      '  - repo: https://github.com/astral-sh/ruff-pre-commit',
      '    rev: v0.6.0',
      '    hooks:',
      '      - id: ruff',
      '      - id: ruff-format',
      '  - repo: https://github.com/doublify/pre-commit-rust',
      '    rev: v1.0',
      '    hooks:',
      '      - id: fmt',
      '  - repo: local',
      '    hooks:',
      '      - id: gofmt',
      '        name: gofmt',
      '        entry: gofmt -w',
      '        language: system',
      '',
    ].join('\n');
    expect(summary(discover({ '.pre-commit-config.yaml': config }))).toEqual({
      'ruff-check': ['.pre-commit-config.yaml', false, true],
      'ruff-format': ['.pre-commit-config.yaml', false, true],
      rustfmt: ['.pre-commit-config.yaml', false, true],
      gofmt: ['.pre-commit-config.yaml', false, true],
    });
    const withService = discover({ '.pre-commit-config.yaml': `ci:\n  autofix_prs: false\n${config}` });
    expect(withService.get('ruff-check')!.inCi).toBe(true);
    const fromWorkflow = discover({
      '.pre-commit-config.yaml': config,
      '.github/workflows/lint.yml': workflow('pip install pre-commit\npre-commit run --all-files'),
    });
    expect(fromWorkflow.get('gofmt')!.inCi).toBe(true);
  });

  it('package.json scripts: in CI when a workflow runs the script, directly or through another script', () => {
    const pkg = JSON.stringify({
      scripts: {
        lint: 'npm run lint:format && eslint .',
        'lint:format': 'prettier --check .',
        typecheck: 'tsc --noEmit',
        format: 'prettier --write .',
      },
    });
    const local = discover({ 'package.json': pkg });
    expect(summary(local)).toEqual({
      prettier: ['package.json', false, true],
      eslint: ['package.json', false, true],
      tsc: ['package.json', false, true],
    });
    const ci = discover({ 'package.json': pkg, '.github/workflows/ci.yml': workflow('npm ci\nnpm run lint') });
    expect(summary(ci)).toEqual({
      prettier: ['package.json', true, true],
      eslint: ['package.json', true, true],
      tsc: ['package.json', false, true],
    });
    expect(ci.get('prettier')!.line).toBe('prettier --check .');
  });

  it('Makefile: targets, prerequisites and $(MAKE) calls reached from CI', () => {
    const makefile = [
      '.PHONY: lint fmt check',
      'check: lint',
      '\t@$(MAKE) vet',
      'lint:',
      '\t@test -z "$$(gofmt -l .)" || (gofmt -d . && exit 1)',
      'vet:',
      '\tgo vet ./...',
      'fmt:',
      '\tcargo fmt',
      '',
    ].join('\n');
    expect(summary(discover({ Makefile: makefile }))).toEqual({
      gofmt: ['Makefile', false, true],
      'go-vet': ['Makefile', false, true],
      rustfmt: ['Makefile', false, false],
    });
    expect(summary(discover({ Makefile: makefile, '.github/workflows/ci.yml': workflow('make check') }))).toEqual({
      gofmt: ['Makefile', true, true],
      'go-vet': ['Makefile', true, true],
      rustfmt: ['Makefile', false, false],
    });
    // `make` alone runs the first target
    expect(discover({ Makefile: makefile, '.github/workflows/ci.yml': workflow('make') }).get('gofmt')!.inCi).toBe(true);
  });

  it('tox.ini: environments named by a workflow with -e, or all of them with a bare tox', () => {
    const tox = [
      '[tox]',
      'envlist = py, lint',
      '',
      '[testenv]',
      'commands = pytest {posargs}',
      '',
      '[testenv:lint]',
      'commands =',
      '    ruff check src',
      '    black --check src',
      '',
    ].join('\n');
    expect(summary(discover({ 'tox.ini': tox }))).toEqual({
      'ruff-check': ['tox.ini', false, true],
      black: ['tox.ini', false, true],
    });
    expect(discover({ 'tox.ini': tox, '.github/workflows/ci.yml': workflow('tox -e lint') }).get('black')!.inCi).toBe(true);
    expect(discover({ 'tox.ini': tox, '.github/workflows/ci.yml': workflow('tox -e py') }).get('black')!.inCi).toBe(false);
    expect(discover({ 'tox.ini': tox, '.github/workflows/ci.yml': workflow('tox') }).get('black')!.inCi).toBe(true);
  });

  it('prefers the occurrence CI enforces over a local one, whatever the file order', () => {
    const found = discover({
      Makefile: 'fmt:\n\tgofmt -w .\n',
      '.github/workflows/ci.yml': workflow('gofmt -d . | tee /dev/stderr | (! read)'),
    });
    expect(summary(found)).toEqual({ gofmt: ['.github/workflows/ci.yml', true, true] });
  });

  it('commands that are not checks are not mistaken for them', () => {
    expect(checksOfCommand('go test ./...')).toEqual([]);
    expect(checksOfCommand('cargo build --release')).toEqual([]);
    expect(checksOfCommand('tsc -p tsconfig.build.json')).toEqual([]);
    expect(checksOfCommand('echo gofmt')).toEqual([]);
    expect(checksOfCommand('ruff --version')).toEqual([]);
    expect(checksOfCommand('ruff check --exit-zero .')).toEqual([{ tool: 'ruff-check', enforced: false }]);
    expect(checksOfCommand('cargo +nightly fmt --check')).toEqual([{ tool: 'rustfmt', enforced: true }]);
    expect(checksOfCommand('yarn prettier --check .')).toEqual([{ tool: 'prettier', enforced: true }]);
    expect(checksOfCommand('pnpm exec tsc --noEmit')).toEqual([{ tool: 'tsc', enforced: true }]);
    expect(discover({ '.github/workflows/ci.yml': 'not: [valid' })).toEqual(new Map());
  });

  it('reads the paths a ruff, black, prettier or eslint command names, and only those it can read for sure', () => {
    expect(checksOfCommand('prettier --check src "docs/**/*.md"')).toEqual([
      { tool: 'prettier', enforced: true, paths: ['src', 'docs/**/*.md'] },
    ]);
    expect(checksOfCommand('eslint -c .eslintrc.cjs --ext .ts,.tsx --max-warnings 0 ./lib/ test')).toEqual([
      { tool: 'eslint', enforced: true, paths: ['lib', 'test'] },
    ]);
    expect(checksOfCommand('uv run ruff check --select E,F src tests')).toEqual([
      { tool: 'ruff-check', enforced: true, paths: ['src', 'tests'] },
    ]);
    expect(checksOfCommand('black --check -l 100 pkg')).toEqual([{ tool: 'black', enforced: true, paths: ['pkg'] }]);
    // the whole tree, or what cannot be read statically: no narrowing
    expect(checksOfCommand('prettier --check .')).toEqual([{ tool: 'prettier', enforced: true }]);
    expect(checksOfCommand('eslint -c eslint.config.js')).toEqual([{ tool: 'eslint', enforced: true }]);
    expect(checksOfCommand('ruff check $SRC')).toEqual([{ tool: 'ruff-check', enforced: true }]);
    expect(checksOfCommand("prettier --check '**/*' '!**/*.md'")).toEqual([{ tool: 'prettier', enforced: true }]);
  });

  it('mypy: found in commands and hooks, always a failing form; its paths, options and the configuration’s files and exclude', () => {
    const found = discover({
      '.github/workflows/ci.yml': workflow('uv run mypy --strict src tests'),
      'pyproject.toml': '[tool.mypy]\nexclude = ["^build/", "_pb2\\\\.py$"]\n',
    });
    expect(summary(found)).toEqual({ mypy: ['.github/workflows/ci.yml', true, true] });
    expect(found.get('mypy')).toMatchObject({
      paths: ['src', 'tests'],
      args: ['--strict', 'src', 'tests'],
      exclude: ['^build/', '_pb2\\.py$'],
      config: 'pyproject.toml',
    });
    // no paths on the command: the configuration's `files` (mypy.ini comes before pyproject.toml, as in mypy)
    const bare = discover({
      Makefile: 'typecheck:\n\tpython -m mypy\n',
      'mypy.ini': '[mypy]\nfiles = calc, tools/\n',
      'pyproject.toml': '[tool.mypy]\nfiles = ["other"]\n',
    }).get('mypy')!;
    expect([bare.inCi, bare.paths, bare.config]).toEqual([false, ['calc', 'tools'], 'mypy.ini']);
    // a package named with -p is its directory (or a src layout's)
    expect(checksOfCommand('mypy -p calc.core')[0]!.paths).toEqual(['calc/core', 'calc/core.py', 'src/calc/core', 'src/calc/core.py']);
    // setup.cfg counts only with a [mypy] section; a pre-commit hook carries its args
    const hook = discover({
      '.pre-commit-config.yaml':
        'ci:\n  autofix_prs: false\nrepos:\n  - repo: https://github.com/pre-commit/mirrors-mypy\n    rev: v1.13.0\n    hooks:\n      - id: mypy\n        args: [--strict]\n',
      'setup.cfg': '[metadata]\nname = calc\n',
    }).get('mypy')!;
    expect([hook.inCi, hook.enforced, hook.args, hook.config]).toEqual([true, true, ['--strict'], undefined]);
  });

  it('clippy: enforced only when warnings fail it (-D warnings on the line, in RUSTFLAGS, a hook’s default)', () => {
    const clippy = (files: Record<string, string>) => summary(discover(files)).clippy;
    expect(clippy({ '.github/workflows/a.yml': workflow('cargo clippy --all-targets --all-features -- -D warnings') })).toEqual([
      '.github/workflows/a.yml',
      true,
      true,
    ]);
    expect(clippy({ '.github/workflows/a.yml': workflow('cargo +stable clippy --workspace') })).toEqual([
      '.github/workflows/a.yml',
      true,
      false,
    ]);
    // a step that also checks the tree for changes does not make clippy deny warnings
    expect(clippy({ '.github/workflows/a.yml': workflow('cargo clippy\ngit diff --exit-code') })).toEqual([
      '.github/workflows/a.yml',
      true,
      false,
    ]);
    expect(clippy({ '.github/workflows/a.yml': workflow('RUSTFLAGS="-D warnings" cargo clippy') })).toEqual([
      '.github/workflows/a.yml',
      true,
      true,
    ]);
    // RUSTFLAGS from the workflow's or the job's env
    const withEnv = (env: string) =>
      `name: ci\non: push\n${env}jobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo clippy --all-targets\n`;
    expect(clippy({ '.github/workflows/a.yml': withEnv('env:\n  RUSTFLAGS: -Dwarnings\n') })).toEqual([
      '.github/workflows/a.yml',
      true,
      true,
    ]);
    expect(clippy({ '.github/workflows/a.yml': withEnv('env:\n  RUSTFLAGS: -C debuginfo=0\n') })).toEqual([
      '.github/workflows/a.yml',
      true,
      false,
    ]);
    // the clippy-check action's args
    const action =
      'on: push\njobs:\n  c:\n    runs-on: x\n    steps:\n      - uses: actions-rs/clippy-check@v1\n        with:\n          args: --all-features -- -D warnings\n';
    expect(discover({ '.github/workflows/a.yml': action }).get('clippy')).toMatchObject({
      enforced: true,
      inCi: true,
      args: ['--all-features', '--', '-D', 'warnings'],
    });
    // doublify's hook denies warnings by default; replaced args decide
    const hooks = (args: string) =>
      `ci: {}\nrepos:\n  - repo: https://github.com/doublify/pre-commit-rust\n    rev: v1.0\n    hooks:\n      - id: clippy\n${args}`;
    expect(clippy({ '.pre-commit-config.yaml': hooks('') })).toEqual(['.pre-commit-config.yaml', true, true]);
    expect(clippy({ '.pre-commit-config.yaml': hooks('        args: [--all-targets]\n') })).toEqual([
      '.pre-commit-config.yaml',
      true,
      false,
    ]);
    // a Makefile target only: local
    expect(clippy({ Makefile: 'lint:\n\tcargo clippy -- -D warnings\n' })).toEqual(['Makefile', false, true]);
  });
});
