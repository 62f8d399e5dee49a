import { describe, expect, it } from 'vitest';
import { discoverChecks, jobPins } from '../../src/guards/g16-project-checks/discover.js';
import { sameRelease } from '../../src/guards/g16-project-checks/tool-versions.js';
import { severityOf, whyText } from '../../src/guards/g16-project-checks/finding-text.js';

/** CI that runs a check without letting its failure fail the pull request's checks: not `fail`. */
const discover = (files: Record<string, string>, base = 'main') => discoverChecks(new Map(Object.entries(files)), base);

const PRE_COMMIT = 'repos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks:\n      - id: black\n';

describe('G16: enforced means enforced', () => {
  it('pre-commit/action in a step with continue-on-error: the hooks run in CI, but a failure does not fail it', () => {
    const wf = [
      'on: [pull_request]',
      'jobs:',
      '  lint:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - uses: actions/checkout@v4',
      '      - name: hooks',
      '        uses: pre-commit/action@v3.0.1',
      '        continue-on-error: true',
      '',
    ].join('\n');
    const black = discover({ '.github/workflows/ci.yml': wf, '.pre-commit-config.yaml': PRE_COMMIT }).get('black')!;
    expect([black.inCi, black.enforced, black.lenient]).toEqual([
      true,
      true,
      'its step (job `lint`, step `hooks`) has `continue-on-error: true`',
    ]);
    expect(severityOf(black)).toBe('risk');
    expect(whyText(black)).toBe(
      "The repository's CI runs this check (.pre-commit-config.yaml: `hook black`), but its step (job `lint`, step `hooks`) has `continue-on-error: true`, so a failure there does not fail the pull request's checks.",
    );
  });

  it('the same hooks run strictly by another step keep the failing form', () => {
    const wf = [
      'on: [pull_request]',
      'jobs:',
      '  soft:',
      '    continue-on-error: true',
      '    steps:',
      '      - run: pre-commit run --all-files',
      '  hard:',
      '    steps:',
      '      - run: pre-commit run --all-files',
      '',
    ].join('\n');
    const black = discover({ '.github/workflows/ci.yml': wf, '.pre-commit-config.yaml': PRE_COMMIT }).get('black')!;
    expect([black.inCi, black.lenient, severityOf(black)]).toEqual([true, undefined, 'fail']);
  });

  it('a job with continue-on-error, a command ending in `|| true`, a `-` Makefile line', () => {
    const job = discover({
      '.github/workflows/ci.yml':
        'on: push\njobs:\n  fmt:\n    continue-on-error: true\n    steps:\n      - run: test -z "$(gofmt -l .)"\n',
    }).get('gofmt')!;
    expect([job.lenient, severityOf(job)]).toEqual(['job `fmt` has `continue-on-error: true`', 'risk']);
    const masked = discover({
      '.github/workflows/ci.yml': 'on: pull_request\njobs:\n  l:\n    steps:\n      - run: ruff check . || true\n',
    }).get('ruff-check')!;
    expect([masked.lenient, severityOf(masked)]).toEqual(['the command ends in `|| true`', 'risk']);
    const make = discover({
      '.github/workflows/ci.yml': 'on: pull_request\njobs:\n  l:\n    steps:\n      - run: make lint\n',
      Makefile: 'lint:\n\t-cargo fmt --check\n',
    }).get('rustfmt')!;
    expect([make.inCi, make.lenient, severityOf(make)]).toEqual([
      true,
      'the Makefile line starts with `-`, so make ignores its failure',
      'risk',
    ]);
    // `|| exit 1` keeps the failure
    const kept = discover({
      '.github/workflows/ci.yml': 'on: pull_request\njobs:\n  l:\n    steps:\n      - run: ruff check . || exit 1\n',
    }).get('ruff-check')!;
    expect(severityOf(kept)).toBe('fail');
  });

  it('a job whose `if:` runs it only on another branch, on tags or on another event; the base branch itself still counts', () => {
    const job = (cond: string) => `on: [push, pull_request]\njobs:\n  fmt:\n    if: ${cond}\n    steps:\n      - run: cargo fmt --check\n`;
    const lenient = (cond: string) => discover({ '.github/workflows/ci.yml': job(cond) }).get('rustfmt')!.lenient;
    expect(lenient("github.event_name == 'push' && github.ref == 'refs/heads/release'")).toBe(
      "job `fmt` runs only when `github.event_name == 'push' && github.ref == 'refs/heads/release'`",
    );
    expect(lenient("startsWith(github.ref, 'refs/tags/')")).toContain('runs only when');
    expect(lenient("github.event_name == 'schedule'")).toContain('runs only when');
    expect(lenient("github.ref == 'refs/heads/main'")).toBeUndefined();
    expect(lenient("github.event_name == 'pull_request' || github.ref == 'refs/heads/release'")).toBeUndefined();
    expect(lenient("github.repository == 'o/r'")).toBeUndefined();
    const released = discover({
      '.github/workflows/rel.yml': 'on:\n  release:\n    types: [published]\njobs:\n  fmt:\n    steps:\n      - run: cargo fmt --check\n',
    }).get('rustfmt')!;
    expect([released.lenient, severityOf(released)]).toEqual(['the workflow runs only on `release`, not for pull requests', 'risk']);
  });
});

describe('G16: formatters a linter’s configuration enables are checks', () => {
  const ci = (step: string) => `on: [pull_request]\njobs:\n  lint:\n    steps:\n${step}`;
  it('golangci-lint with gofmt, goimports or gofumpt enabled (v1 linters, v2 formatters, enable-all): gofmt, enforced', () => {
    const action = ci('      - uses: golangci/golangci-lint-action@v6\n');
    const v1 = discover({ '.github/workflows/ci.yml': action, '.golangci.yml': 'linters:\n  enable:\n    - goimports\n    - errcheck\n' });
    expect(v1.get('gofmt')).toMatchObject({
      inCi: true,
      enforced: true,
      line: 'uses: golangci/golangci-lint-action@v6 (goimports enabled in .golangci.yml)',
    });
    expect(severityOf(v1.get('gofmt')!)).toBe('fail');
    const v2 = discover({
      '.github/workflows/ci.yml': ci('      - run: golangci-lint run ./...\n'),
      '.golangci.yaml': 'version: "2"\nformatters:\n  enable: [gofmt, gofumpt]\nrun:\n  tests: false\n',
    }).get('gofmt')!;
    expect([v2.line, v2.exclude, severityOf(v2)]).toEqual([
      'golangci-lint run ./... (gofmt, gofumpt enabled in .golangci.yaml)',
      ['_test\\.go$'],
      'fail',
    ]);
    const all = discover({ '.github/workflows/ci.yml': action, '.golangci.yml': 'linters:\n  enable-all: true\n  disable: [gofumpt]\n' });
    expect(all.get('gofmt')?.line).toContain('(gofmt, goimports enabled in .golangci.yml)');
    // without a formatter enabled (or without a config), golangci-lint is not a gofmt check
    expect(
      discover({ '.github/workflows/ci.yml': action, '.golangci.yml': 'linters:\n  enable: [errcheck]\n' }).get('gofmt'),
    ).toBeUndefined();
    expect(discover({ '.github/workflows/ci.yml': action }).get('gofmt')).toBeUndefined();
    // v2 moved the formatters out of `linters`
    expect(
      discover({ '.github/workflows/ci.yml': action, '.golangci.yml': 'version: "2"\nlinters:\n  enable: [gofmt]\n' }).get('gofmt'),
    ).toBeUndefined();
  });

  it('eslint with eslint-plugin-prettier in its config makes prettier a check for what eslint lints', () => {
    const files = {
      '.github/workflows/ci.yml': ci('      - run: npx eslint .\n'),
      '.eslintrc.json': '{ "extends": ["eslint:recommended", "plugin:prettier/recommended"] }',
    };
    const prettier = discover(files).get('prettier')!;
    expect([prettier.inCi, prettier.enforced, prettier.line, severityOf(prettier)]).toEqual([
      true,
      true,
      'npx eslint . (eslint-plugin-prettier in .eslintrc.json)',
      'fail',
    ]);
    expect(prettier.exclude).toHaveLength(1);
    expect(discover({ '.github/workflows/ci.yml': files['.github/workflows/ci.yml'] }).get('prettier')).toBeUndefined();
    // the project's own `prettier --check` in CI is preferred: it judges every file of its kind
    const own = discover({
      ...files,
      'package.json': '{"scripts":{"lint":"prettier --check ."}}',
      '.github/workflows/ci.yml': ci('      - run: npx eslint .\n      - run: npm run lint\n'),
    });
    expect(own.get('prettier')).toMatchObject({ line: 'prettier --check .', inCi: true });
    expect(own.get('prettier')!.exclude).toBeUndefined();
  });
});

describe('G16: the Go and Rust releases a workflow job installs', () => {
  it('reads setup-go, dtolnay/rust-toolchain (ref or input), actions-rs/toolchain and rustup; nothing else', () => {
    const steps = (...s: object[]) => s;
    expect(jobPins('ci.yml', 'fmt', steps({ uses: 'dtolnay/rust-toolchain@master', with: { toolchain: '1.97' } }))).toEqual({
      rust: { version: '1.97', where: 'ci.yml, job `fmt`' },
    });
    expect(jobPins('ci.yml', 'fmt', steps({ uses: 'dtolnay/rust-toolchain@1.80.1' })).rust?.version).toBe('1.80.1');
    expect(jobPins('ci.yml', 'fmt', steps({ uses: 'dtolnay/rust-toolchain@stable' })).rust?.version).toBe('stable');
    expect(jobPins('ci.yml', 'fmt', steps({ run: 'rustup toolchain install 1.85 --profile minimal' })).rust?.version).toBe('1.85');
    expect(
      jobPins('ci.yml', 'fmt', steps({ uses: 'actions-rs/toolchain@v1', with: { toolchain: 'nightly-2025-01-01' } })).rust?.version,
    ).toBe('nightly-2025-01-01');
    expect(jobPins('ci.yml', 'go', steps({ uses: 'actions/setup-go@v5', with: { 'go-version': '1.22.x' } })).go?.version).toBe('1.22');
    expect(jobPins('ci.yml', 'go', steps({ uses: 'actions/setup-go@v5', with: { 'go-version-file': 'go.mod' } })).go?.version).toBe(
      'go.mod',
    );
    // a matrix expression or anything that is not a plain release is not a pin
    expect(jobPins('ci.yml', 'go', steps({ uses: 'actions/setup-go@v5', with: { 'go-version': '${{ matrix.go }}' } }))).toEqual({});
    expect(jobPins('ci.yml', 'x', steps({ uses: 'actions/checkout@v4' }))).toEqual({});
  });

  it('sameRelease compares major and minor only', () => {
    expect(sameRelease('1.95', '1.95.0')).toBe(true);
    expect(sameRelease('go1.22.3', '1.22.0')).toBe(true);
    expect(sameRelease('1.97', '1.95.0')).toBe(false);
    expect(sameRelease('stable', '1.95.0')).toBe(false);
  });
});
