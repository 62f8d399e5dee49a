import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Report } from '../../src/core/report.js';
import { prRepo, removeTestRepos, type FileContent } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * G16 runs the project's own build (`npm run build`) in the sandbox at base and head, through the
 * real CLI with tests on. The project has no dependencies, so nothing is installed: its build is a
 * Node script that imports a name from the project's own module.
 */
const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'src', 'cli.ts');

afterAll(() => removeTestRepos());

function check(base: Record<string, FileContent>, head: Record<string, FileContent>): Report {
  const repo = prRepo(base, head);
  const r = spawnSync(TSX, [CLI, 'check', '--base', 'main', '--head', 'pr', '--only', 'G16', '--format', 'json'], {
    cwd: repo.dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (!r.stdout.trim()) throw new Error(`slopgate check printed nothing (exit ${String(r.status)}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Report;
}

const PKG = JSON.stringify({ name: 'site', version: '1.0.0', type: 'module', scripts: { build: 'node build.mjs' } });
const BUILD = "import { greet } from './src/lib.mjs';\nconsole.log(greet('site'));\n";
const LIB = 'export function greet(name) {\n  return `hello ${name}`;\n}\n';

needs('bwrap')('G16: the project’s build at base and head (real CLI, sandbox)', () => {
  it('the build passes at the base and fails at the head: a blocking build-broken naming the first error', () => {
    const report = check(
      { 'package.json': PKG, 'build.mjs': BUILD, 'src/lib.mjs': LIB },
      { 'src/lib.mjs': LIB.replace('greet', 'welcome') },
    );
    const found = report.findings.filter((f) => f.guard === 'G16');
    expect(found.map((f) => [f.category, f.severity])).toEqual([['build-broken', 'fail']]);
    expect(found[0]!.message).toContain(
      'The project\'s build (`npm run build`, package.json: "build": "node build.mjs") passes at the base and fails',
    );
    expect(found[0]!.message).toContain("does not provide an export named 'greet'");
    expect(report.sections.checks?.checks).toEqual([expect.objectContaining({ tool: 'build', status: 'ran', severity: 'fail' })]);
    expect(report.decision.outcome).not.toBe('PASS');
  });

  it('a build that already fails at the base: nothing, and the check says why', () => {
    const broken = LIB.replace('greet', 'other');
    const report = check(
      { 'package.json': PKG, 'build.mjs': BUILD, 'src/lib.mjs': broken },
      { 'src/lib.mjs': `${broken}export const x = 1;\n` },
    );
    expect(report.findings.filter((f) => f.guard === 'G16')).toEqual([]);
    expect(report.sections.checks?.checks).toEqual([
      expect.objectContaining({ tool: 'build', status: 'ran', reason: expect.stringContaining('already fails at the base') }),
    ]);
  });
});

/** A Go module: `a` has tests, `b` has none (CI's `go test ./a/...` never compiles it). */
const GO_MOD = 'module example.com/m\n\ngo 1.21\n';
const A = 'package a\n\nfunc A() int { return 1 }\n';
const A_TEST = 'package a\n\nimport "testing"\n\nfunc TestA(t *testing.T) {\n\tif A() != 1 {\n\t\tt.Fatal("A")\n\t}\n}\n';
const B = 'package b\n\nfunc B() int { return 2 }\n';
const B_BROKEN = 'package b\n\nfunc B() int { return undefinedThing }\n';
const NODE_PKG = JSON.stringify({
  name: 'site',
  version: '1.0.0',
  type: 'module',
  scripts: { test: 'node --test', build: 'node build.mjs' },
});

const workflow = (...runs: string[]) =>
  ['name: ci', 'on: pull_request', 'jobs:', '  build:', '    runs-on: ubuntu-latest', '    steps:', '      - uses: actions/checkout@v4']
    .concat(runs.map((r) => `      - run: ${r}`))
    .join('\n') + '\n';

const project = (ci: string, b: string) => ({
  '.github/workflows/ci.yml': ci,
  'go.mod': GO_MOD,
  'a/a.go': A,
  'a/a_test.go': A_TEST,
  'b/b.go': b,
  'package.json': NODE_PKG,
  'build.mjs': BUILD,
  'src/lib.mjs': LIB,
});

needs('bwrap', 'go')('G16: the builds CI runs (Go and Node, real CLI, sandbox)', () => {
  it('CI builds a Go package no test compiles and bundles a tested Node project: both breaks block, naming the CI line', () => {
    const ci = workflow('go test ./a/...', 'go build ./...', 'npm test', 'npm run build');
    const report = check(project(ci, B), { 'b/b.go': B_BROKEN, 'src/lib.mjs': LIB.replace('greet', 'welcome') });
    const found = report.findings.filter((f) => f.guard === 'G16');
    expect(found.map((f) => [f.category, f.severity])).toEqual([
      ['build-broken', 'fail'],
      ['build-broken', 'fail'],
    ]);
    const go = found.find((f) => f.message.includes('go build'))!;
    expect(go.message).toContain('(`go build ./...`, .github/workflows/ci.yml:9) passes at the base and fails');
    expect(go.message).toContain('undefined: undefinedThing');
    const node = found.find((f) => f.message.includes('npm run build'))!;
    expect(node.message).toContain('.github/workflows/ci.yml:11');
    expect(node.message).toContain("does not provide an export named 'greet'");
    expect(report.sections.checks?.checks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tool: 'build', source: '.github/workflows/ci.yml:9: go build ./...', status: 'ran' }),
        expect.objectContaining({ tool: 'build', source: '.github/workflows/ci.yml:11: npm run build', status: 'ran' }),
      ]),
    );
    expect(report.decision.outcome).not.toBe('PASS');
  });

  it('a Go build broken at both sides is nothing; a Node build CI runs with `|| true` is a risk naming why', () => {
    const ci = workflow('go test ./a/...', 'go build ./...', 'npm run build || true');
    const report = check(project(ci, B_BROKEN), {
      'b/b.go': `${B_BROKEN}\nfunc C() int { return 3 }\n`,
      'src/lib.mjs': LIB.replace('greet', 'welcome'),
    });
    const found = report.findings.filter((f) => f.guard === 'G16');
    expect(found.map((f) => [f.category, f.severity])).toEqual([['build-broken', 'risk']]);
    expect(found[0]!.message).toContain('CI runs it leniently (the command ends in `|| true`)');
    expect(report.sections.checks?.checks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          source: '.github/workflows/ci.yml:9: go build ./...',
          reason: expect.stringContaining('already fails at the base'),
        }),
      ]),
    );
  });

  it("a Go build G8's `go test ./...` already compiles is not run again, and the record says why", () => {
    const ci = workflow('go test ./...', 'go build ./...');
    const report = check(project(ci, B), { 'b/b.go': B_BROKEN });
    expect(report.findings.filter((f) => f.category === 'build-broken')).toEqual([]);
    expect(report.sections.checks?.checks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          tool: 'build',
          status: 'skipped',
          reason: expect.stringContaining("G8's `go test ./...` compiles every package"),
        }),
      ]),
    );
    // covered by G8's run, so no gap in the coverage record
    expect(report.coverage?.filter((e) => e.check === 'G16 build').map((e) => e.status)).toEqual(['skipped']);
  });
});

needs('bwrap', 'cargo')('G16: a cargo build G8 does not run (real CLI, sandbox)', () => {
  it('go.mod makes G8 run go test, so the `cargo build` CI runs is G16’s: a break at the head blocks with rustc’s error', () => {
    const crate = {
      'Cargo.toml': '[package]\nname = "crate"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
      'src/lib.rs': 'pub fn one() -> i32 {\n    1\n}\n',
      'go.mod': GO_MOD,
      '.github/workflows/ci.yml': workflow('cargo build'),
    };
    const report = check(crate, { 'src/lib.rs': 'pub fn one() -> i32 {\n    missing()\n}\n' });
    const found = report.findings.filter((f) => f.guard === 'G16');
    expect(found.map((f) => [f.category, f.severity])).toEqual([['build-broken', 'fail']]);
    expect(found[0]!.message).toContain('(`cargo build`, .github/workflows/ci.yml:8) passes at the base and fails');
    expect(found[0]!.message).toContain('cannot find function `missing`');
  });
});
