import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Finding } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';
import { prRepo, removeTestRepos, type FileContent } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * G16 through the real CLI (`slopgate check --only G16`) on throwaway repositories: gofmt and rustfmt
 * run on base and head; only what the pull request introduced, on its changed lines, is reported.
 */
const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'src', 'cli.ts');

afterAll(() => removeTestRepos());

function check(
  base: Record<string, FileContent>,
  head: Record<string, FileContent>,
  env: NodeJS.ProcessEnv = process.env,
  tests: string[] = ['--no-tests'],
): Report {
  const repo = prRepo(base, head);
  const r = spawnSync(TSX, [CLI, 'check', '--base', 'main', '--head', 'pr', '--only', 'G16', ...tests, '--format', 'json'], {
    cwd: repo.dir,
    encoding: 'utf8',
    env: { ...env, NO_COLOR: '1' },
  });
  if (!r.stdout.trim()) throw new Error(`slopgate check printed nothing (exit ${String(r.status)}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Report;
}

const g16 = (report: Report): Finding[] => report.findings.filter((f) => f.guard === 'G16');
const status = (report: Report) => report.guards.find((g) => g.id === 'G16');

const workflow = (run: string) =>
  `name: ci\non: [pull_request]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: ${run}\n`;

const GO_BASE = 'package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n';
/** The PR adds a function with trailing whitespace and space indentation. */
const GO_HEAD = `${GO_BASE}\n// Sub subtracts.\nfunc Sub(a, b int) int {   \n    return a - b\n}\n`;
const GO_FORMATTED = `${GO_BASE}\n// Sub subtracts.\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n`;

needs('go')('G16: gofmt on the Go files a pull request changes (real CLI)', () => {
  it('the workflow runs `gofmt -l`: trailing whitespace and space indentation on added lines fail, with the fix', () => {
    const ci = { '.github/workflows/ci.yml': workflow('test -z "$(gofmt -l .)"') };
    const report = check({ ...ci, 'calc/calc.go': GO_BASE }, { 'calc/calc.go': GO_HEAD });
    const found = g16(report);
    expect(found.map((f) => [f.path, f.severity, f.category, f.line, f.endLine])).toEqual([
      ['calc/calc.go', 'fail', 'lint-violation', 9, 10],
    ]);
    expect(found[0]!.message).toContain('`gofmt -l` rejects calc/calc.go');
    expect(found[0]!.message).toContain('.github/workflows/ci.yml');
    expect(found[0]!.remediation).toBe('Run `gofmt -w calc/calc.go` and commit the result.');
    expect(found[0]!.suggestion).toEqual({
      path: 'calc/calc.go',
      startLine: 9,
      endLine: 10,
      replacement: 'func Sub(a, b int) int {\n\treturn a - b',
    });
    expect(GO_HEAD.split('\n').slice(0, 8).join('\n') + '\n' + found[0]!.suggestion!.replacement + '\n}\n').toBe(GO_FORMATTED);
    expect(report.decision.outcome).not.toBe('PASS');
    expect(report.sections.checks?.checks).toEqual([
      {
        tool: 'gofmt',
        source: '.github/workflows/ci.yml: test -z "$(gofmt -l .)"',
        severity: 'fail',
        status: 'ran',
        files: 1,
        found: { fail: 1, risk: 0, nit: 0 },
      },
    ]);
  });

  it('without any configured check the gofmt convention still applies, as a risk', () => {
    const found = g16(check({ 'calc/calc.go': GO_BASE }, { 'calc/calc.go': GO_HEAD }));
    expect(found.map((f) => [f.path, f.severity, f.line])).toEqual([['calc/calc.go', 'risk', 9]]);
    expect(found[0]!.message).toContain('by convention');
  });

  it('a new Go file counts as clean at the base', () => {
    const found = g16(check({ 'README.md': 'x\n' }, { 'calc/sub.go': 'package calc\n\nfunc Sub(a, b int) int {\n  return a - b\n}\n' }));
    expect(found.map((f) => [f.path, f.severity, f.line])).toEqual([['calc/sub.go', 'risk', 4]]);
  });

  it('a file already unformatted at the base is not the pull request’s doing: nothing', () => {
    const messy = 'package calc\n\nfunc Add(a, b int) int {\n    return a + b\n}\n';
    const report = check(
      { '.github/workflows/ci.yml': workflow('gofmt -l . | tee /dev/stderr | (! read)'), 'calc/calc.go': messy },
      { 'calc/calc.go': `${messy}\nfunc Sub(a, b int) int {\n    return a - b\n}\n` },
    );
    expect(g16(report)).toEqual([]);
    expect(status(report)?.status).toBe('pass');
    // It ran and found nothing: counted as such, so the report does not read "fail".
    expect(report.sections.checks?.checks[0]).toMatchObject({ tool: 'gofmt', status: 'ran', found: { fail: 0, risk: 0, nit: 0 } });
  });

  it('formatted changes, a syntax error (G2’s finding) and unformatted lines the PR did not touch give nothing', () => {
    const report = check(
      { 'calc/calc.go': GO_BASE, 'calc/other.go': 'package calc\n\nvar X = 1\n' },
      { 'calc/calc.go': GO_FORMATTED, 'calc/other.go': 'package calc\n\nvar X = (1\n' },
    );
    expect(g16(report)).toEqual([]);
  });

  it('a missing gofmt is a skip with its cause, never a pass and never a finding', () => {
    const report = check(
      { 'calc/calc.go': GO_BASE },
      { 'calc/calc.go': GO_HEAD },
      { ...process.env, PATH: `${join(process.execPath, '..')}:/usr/bin:/bin` },
    );
    expect(g16(report)).toEqual([]);
    expect(status(report)?.status).toBe('skipped');
    expect(status(report)?.reason).toContain('gofmt is not installed');
  });

  it('a Python file under a CI ruff check with --no-tests: skipped for want of the installed dependencies, never passed', () => {
    const report = check({ '.github/workflows/ci.yml': workflow('ruff check .'), 'app.py': 'x = 1\n' }, { 'app.py': 'x = 1\ny=2\n' });
    expect(status(report)?.status).toBe('skipped');
    expect(status(report)?.reason).toBe(
      "ruff-check: it needs the project's dependencies, which slopgate installs only with tests on (--no-tests)",
    );
    expect(report.sections.checks?.checks[0]).toMatchObject({ tool: 'ruff-check', status: 'skipped', severity: 'fail' });
    // the run left it out by the operator's choice: named in the coverage record, and no gap that turns PASS into ADVISE
    expect(report.coverage?.find((e) => e.check === 'G16 ruff-check')).toMatchObject({ status: 'skipped' });
    expect(report.coverage?.filter((e) => e.status === 'partial' || e.status === 'not-run')).toEqual([]);
  });

  it('tests on but no sandbox on this machine: the sandboxed checks install and run nothing, and say why', () => {
    const report = check(
      { '.github/workflows/ci.yml': workflow('ruff check .'), 'requirements-dev.txt': 'ruff==0.8.4\n', 'app.py': 'x = 1\n' },
      { 'app.py': 'import os\nx = 1\n' },
      { ...process.env, SLOPGATE_BWRAP: '/nonexistent/slopgate-test/bwrap' },
      [],
    );
    expect(g16(report)).toEqual([]);
    expect(status(report)?.status).toBe('skipped');
    expect(status(report)?.reason).toMatch(/^ruff-check: it runs project code, which needs the sandbox: the sandbox cannot be established/);
  });
});

const RS_BASE = 'pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n';
const RS_HEAD = `${RS_BASE}\npub fn sub(a: i32,b: i32)->i32{ a-b }\n`;
const CARGO = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n';

needs('rustfmt')('G16: rustfmt on the Rust files a pull request changes (real CLI)', () => {
  it('the workflow runs `cargo fmt --check`: a mis-formatted function the PR adds fails, with the fix', () => {
    const ci = { '.github/workflows/ci.yml': workflow('cargo fmt --all -- --check'), 'Cargo.toml': CARGO };
    const found = g16(check({ ...ci, 'src/lib.rs': RS_BASE }, { 'src/lib.rs': RS_HEAD }));
    expect(found.map((f) => [f.path, f.severity, f.line])).toEqual([['src/lib.rs', 'fail', 5]]);
    expect(found[0]!.message).toContain('`cargo fmt --check` rejects src/lib.rs');
    expect(found[0]!.remediation).toBe('Run `rustfmt --edition 2021 src/lib.rs` and commit the result.');
    expect(found[0]!.suggestion?.replacement).toBe('pub fn sub(a: i32, b: i32) -> i32 {\n    a - b\n}');
  });

  it('the project’s rustfmt.toml at the base decides what is formatted (hard tabs: space indentation is rejected)', () => {
    // Without the config the tab-indented base would not be rustfmt-clean and nothing would be reported.
    const tabs = 'pub fn add(a: i32, b: i32) -> i32 {\n\ta + b\n}\n';
    const found = g16(
      check(
        {
          '.github/workflows/ci.yml': workflow('cargo fmt --check'),
          'Cargo.toml': CARGO,
          'rustfmt.toml': 'hard_tabs = true\n',
          'src/lib.rs': tabs,
        },
        { 'src/lib.rs': `${tabs}\npub fn sub(a: i32, b: i32) -> i32 {\n    a - b\n}\n` },
      ),
    );
    expect(found.map((f) => [f.path, f.severity, f.line])).toEqual([['src/lib.rs', 'fail', 6]]);
    expect(found[0]!.message).toContain('with the settings of rustfmt.toml');
    expect(found[0]!.suggestion).toMatchObject({ startLine: 6, endLine: 6, replacement: '\ta - b' });
  });

  it('no rustfmt check configured: Rust files are not judged (only gofmt is a universal convention)', () => {
    const report = check({ 'Cargo.toml': CARGO, 'src/lib.rs': RS_BASE }, { 'src/lib.rs': RS_HEAD });
    expect(g16(report)).toEqual([]);
  });
});
