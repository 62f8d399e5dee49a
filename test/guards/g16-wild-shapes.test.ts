import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Finding } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';
import { prRepo, removeTestRepos, type FileContent } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * G16 shapes seen on real pull requests, through the real CLI with tests off (gofmt and rustfmt
 * only, nothing installed): a check CI runs without failing on it, a formatter a linter's config
 * enables, a formatter pinned at a version the machine does not have.
 */
const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'src', 'cli.ts');

afterAll(() => removeTestRepos());

function check(base: Record<string, FileContent>, head: Record<string, FileContent>): Report {
  const repo = prRepo(base, head);
  const r = spawnSync(TSX, [CLI, 'check', '--base', 'main', '--head', 'pr', '--only', 'G16', '--no-tests', '--format', 'json'], {
    cwd: repo.dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (!r.stdout.trim()) throw new Error(`slopgate check printed nothing (exit ${String(r.status)}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Report;
}

const g16 = (report: Report): Finding[] => report.findings.filter((f) => f.guard === 'G16');

const GO_BASE = 'package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n';
const GO_HEAD = `${GO_BASE}\n// Sub subtracts.\nfunc Sub(a, b int) int {   \n\treturn a - b\n}\n`;

needs('go')('G16 on shapes of real pull requests: Go (real CLI, tests off)', () => {
  it('the gofmt hook run by pre-commit/action with continue-on-error: a risk naming the step, not a failure', () => {
    const wf =
      'on: [pull_request]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: hooks\n        uses: pre-commit/action@v3.0.1\n        continue-on-error: true\n';
    const hooks = 'repos:\n  - repo: https://github.com/dnephin/pre-commit-golang\n    rev: v0.5.1\n    hooks:\n      - id: go-fmt\n';
    const report = check(
      { '.github/workflows/ci.yml': wf, '.pre-commit-config.yaml': hooks, 'calc/calc.go': GO_BASE },
      { 'calc/calc.go': GO_HEAD },
    );
    const found = g16(report);
    expect(found.map((f) => [f.path, f.severity, f.line])).toEqual([['calc/calc.go', 'risk', 9]]);
    expect(found[0]!.message).toContain('but its step (job `lint`, step `hooks`) has `continue-on-error: true`');
    expect(report.decision.outcome).not.toBe('BLOCK');
  });

  it('CI runs golangci-lint whose config enables gofmt: trailing whitespace the PR adds to a test file fails', () => {
    const wf =
      'on: [pull_request]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: golangci/golangci-lint-action@v6\n';
    const test = 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("bad")\n\t}\n}\n';
    const report = check(
      {
        '.github/workflows/ci.yml': wf,
        '.golangci.yml': 'linters:\n  enable:\n    - gofmt\n    - goimports\n',
        'calc/calc.go': GO_BASE,
        'calc/calc_test.go': test,
      },
      { 'calc/calc_test.go': test.replace('\t\tt.Fatal("bad")', '\t\tt.Fatal("bad") \t') },
    );
    const found = g16(report);
    expect(found.map((f) => [f.path, f.severity, f.line])).toEqual([['calc/calc_test.go', 'fail', 7]]);
    expect(found[0]!.message).toContain('uses: golangci/golangci-lint-action@v6 (gofmt, goimports enabled in .golangci.yml)');
    expect(found[0]!.message).toContain('so it will fail there');
  });
});

const RS_BASE = 'pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n';
const RS_HEAD = `${RS_BASE}\npub fn sub(a: i32,b: i32)->i32{ a-b }\n`;
const CARGO = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n';
const rustWorkflow = (toolchain: string) =>
  `on: [pull_request]\njobs:\n  fmt:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: dtolnay/rust-toolchain@master\n        with:\n          toolchain: "${toolchain}"\n          components: rustfmt\n      - run: cargo fmt --all -- --check\n`;

needs('rustfmt')('G16 on shapes of real pull requests: Rust toolchain pins (real CLI, tests off)', () => {
  const machine = /rustc (\d+)\.(\d+)\.(\d+)/.exec(execFileSync('rustc', ['--version'], { encoding: 'utf8' }))!;
  const [major, minor] = [Number(machine[1]), Number(machine[2])];

  it('CI pins a newer Rust than the machine has: what the machine’s rustfmt rejects is a risk naming both releases', () => {
    const pinned = `${major}.${minor + 2}`;
    const report = check(
      { '.github/workflows/ci.yml': rustWorkflow(pinned), 'Cargo.toml': CARGO, 'src/lib.rs': RS_BASE },
      { 'src/lib.rs': RS_HEAD },
    );
    const found = g16(report);
    expect(found.map((f) => [f.path, f.severity, f.line])).toEqual([['src/lib.rs', 'risk', 5]]);
    expect(found[0]!.message).toContain(`formats with Rust ${pinned} (.github/workflows/ci.yml, job \`fmt\`), which is not installed here`);
    expect(found[0]!.message).toContain(`rustfmt of Rust ${machine[0].slice(6)}`);
    expect(found[0]!.message).toContain('so whether it fails there is not known');
    const record = report.sections.checks?.checks[0];
    expect([record?.severity, record?.reason]).toEqual(['risk', expect.stringContaining(`Rust ${pinned}`)]);
    expect(report.decision.outcome).not.toBe('BLOCK');
  });

  it('CI pins the machine’s own release: the finding still fails', () => {
    const report = check(
      { '.github/workflows/ci.yml': rustWorkflow(`${major}.${minor}`), 'Cargo.toml': CARGO, 'src/lib.rs': RS_BASE },
      { 'src/lib.rs': RS_HEAD },
    );
    expect(g16(report).map((f) => [f.severity, f.line])).toEqual([['fail', 5]]);
  });
});
