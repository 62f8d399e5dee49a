import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/core/report.js';
import { prRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * Where bubblewrap cannot start, a PR that breaks a test must not pass: the real CLI exits 3 with one
 * line saying so and a hint, unless the tests were turned off on purpose or the operator allowed
 * unsandboxed runs. The sandbox is taken away with SLOPGATE_BWRAP, which can only make things stricter.
 */

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'src', 'cli.ts');
const NO_BWRAP = '/nonexistent/slopgate-test/bwrap';

function check(dir: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(TSX, [CLI, 'check', '--base', 'main', '--head', 'pr', '--format', 'json', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  return { ...r, report: r.status === 0 || r.status === 1 ? (JSON.parse(r.stdout) as Report) : undefined };
}

const BASE = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
  'calc/__init__.py': '',
  'calc/ops.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
};
const BREAKS = { 'calc/ops.py': 'def add(a, b):\n    return a - b\n' };

needs('pytest')('slopgate check without a sandbox', () => {
  it('a PR that breaks a test: exit 3, "not about your code", bwrap\'s error and a one-line hint — never a pass', () => {
    const repo = prRepo(BASE, BREAKS);
    // --quiet: stderr is then the error alone (without it, the progress lines of a non-terminal come first).
    const r = check(repo.dir, ['--quiet'], { SLOPGATE_BWRAP: NO_BWRAP });
    expect(r.status).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `slopgate: not about your code: the sandbox could not start — bwrap cannot start: ${NO_BWRAP} ENOENT\n` +
        '  hint: install bubblewrap (and allow unprivileged user namespaces), or run with --no-tests\n',
    );
  }, 120_000);

  it('--no-tests and tests.enabled: false turn the test gate off on purpose: the rest of the gate reports', () => {
    const repo = prRepo(BASE, BREAKS);
    const noTests = check(repo.dir, ['--no-tests'], { SLOPGATE_BWRAP: NO_BWRAP });
    expect(noTests.status).toBe(0);
    expect(noTests.report!.guards.find((g) => g.id === 'G8')).toMatchObject({
      status: 'skipped',
      reason: 'disabled for this run (--no-tests)',
    });
    writeFileSync(join(repo.dir, 'off.yml'), 'tests:\n  enabled: false\n');
    const off = check(repo.dir, ['--config', 'off.yml'], { SLOPGATE_BWRAP: NO_BWRAP });
    expect(off.status).toBe(0);
    expect(off.report!.guards.find((g) => g.id === 'G8')?.status).toBe('skipped');
  }, 120_000);

  it('best-effort allowed by the operator runs the tests without isolation and finds the regression', () => {
    const repo = prRepo(BASE, BREAKS);
    writeFileSync(join(repo.dir, 'best.yml'), 'tests:\n  isolation: best-effort\n  reruns: 0\n  install: "off"\n');
    const r = check(repo.dir, ['--config', 'best.yml'], { SLOPGATE_BWRAP: NO_BWRAP, SLOPGATE_TESTS_ISOLATION: 'best-effort' });
    expect(r.status, JSON.stringify(r.report?.sections.tests ?? r.stderr)).toBe(1);
    expect(r.report!.findings.map((f) => f.category)).toContain('test-regression');
    expect(r.report!.sections.tests).toMatchObject({ sandbox: { sandbox: 'none' } });
  }, 120_000);

  it('SLOPGATE_BWRAP only makes things stricter: a program other than the bwrap on PATH is refused even when it runs', () => {
    const repo = prRepo(BASE, BREAKS);
    const r = check(repo.dir, ['--quiet'], { SLOPGATE_BWRAP: '/bin/true' });
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(
      /^slopgate: not about your code: the sandbox could not start — SLOPGATE_BWRAP=\/bin\/true is not the bwrap on PATH/,
    );
  }, 120_000);
});

describe('slopgate check without a sandbox, on a repository without tests', () => {
  it('needs no sandbox: nothing would run', () => {
    const repo = prRepo({ 'notes.txt': 'a\n' }, { 'notes.txt': 'a\nb\n' });
    const r = check(repo.dir, [], { SLOPGATE_BWRAP: NO_BWRAP });
    expect(r.status).toBe(0);
    expect(r.report!.guards.find((g) => g.id === 'G8')?.status).toBe('skipped');
  }, 60_000);
});

describe('slopgate demo without a sandbox', () => {
  it('says the sandbox could not start and shows the gate without the tests', () => {
    const r = spawnSync(TSX, [CLI, 'demo'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', SLOPGATE_BWRAP: NO_BWRAP } });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("slopgate demo: not about the demo's code: the sandbox could not start");
    expect(r.stdout).toContain('showing the gate without the tests, as --no-tests would');
    // What it prints about exit codes matches its own (0) and says what check would return.
    expect(r.stdout).toMatch(/On this PR 'slopgate check' exits 1 \(the PR is blocked\); 'slopgate demo' exits 0/);
    expect(r.stdout).not.toMatch(/would exit with/);
  }, 120_000);
});
