import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli.js';
import type { Report } from '../../src/core/report.js';
import { renderReport } from '../../src/report/index.js';
import { prRepo, removeTestRepos, type TestRepo } from '../helpers/git-repo.js';

/** `slopgate check --format json` on main → pr with only the given guards, through the real CLI. */
async function check(
  repo: TestRepo,
  only: string[],
  config = 'tests:\n  timeoutSec: 120\n  reruns: 0\n',
): Promise<{ code: number; report: Report }> {
  const file = join(repo.dir, '..', `${repo.dir.split('/').pop()}-slopgate.yml`);
  writeFileSync(file, config);
  let out = '';
  const code = await runCheck(
    { repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, only, config: file },
    (s) => (out += s),
  );
  return { code, report: JSON.parse(out) as Report };
}

afterAll(() => removeTestRepos());

describe('a green means checked', () => {
  it('a pytest suite whose every module fails to import at base and head is not verified: neutral, exit 4, never "every guard passed"', async () => {
    // The package's version module exists only once the project is built (setuptools-scm): here it never is.
    const repo = prRepo(
      {
        'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        'mypkg/__init__.py': 'from mypkg._version import version\n',
        'mypkg/core.py': 'def add(a, b):\n    return a + b\n',
        'tests/test_core.py': 'from mypkg.core import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
      },
      { 'mypkg/core.py': 'def add(a, b):\n    return a - b\n' },
    );
    const { code, report } = await check(repo, ['G8']);
    expect(report.decision.conclusion).toBe('neutral');
    expect(report.decision.outcome).toBe('ADVISE');
    expect(report.decision.reason).toMatch(/^not verified: the suite did not start at the base or the head — /);
    expect(report.decision.reason).not.toMatch(/every guard/);
    expect(code).toBe(4);
    const g8 = report.coverage?.find((c) => c.check === 'G8');
    expect(g8?.status).toBe('not-run');
    const text = renderReport('text', report);
    expect(text).toMatch(/not verified/);
    expect(text).toMatch(/Coverage/);
    const sarif = JSON.parse(renderReport('sarif', report)) as {
      runs: { invocations: { toolExecutionNotifications: { message: { text: string } }[] }[] }[];
    };
    expect(sarif.runs[0]?.invocations[0]?.toolExecutionNotifications.some((n) => n.message.text.includes('G8'))).toBe(true);
  });

  it('a suite that runs at both sides and passes: success, exit 0', async () => {
    const repo = prRepo(
      {
        'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        'tests/test_core.py': 'def add(a, b):\n    return a + b\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
      },
      { 'tests/test_core.py': 'def add(a, b):\n    # the same sum\n    return a + b\n\n\ndef test_add():\n    assert add(1, 2) == 3\n' },
    );
    const { code, report } = await check(repo, ['G8']);
    expect(report.decision.conclusion).toBe('success');
    expect(code).toBe(0);
    expect(report.coverage?.find((c) => c.check === 'G8')).toMatchObject({ status: 'ran' });
    expect(report.coverage?.find((c) => c.scope === 'file tests/test_core.py')).toMatchObject({ status: 'ran' });
  });

  it('a Go change in a package that builds at neither side is not verified, though the other package ran', async () => {
    const repo = prRepo(
      {
        'go.mod': 'module example.com/m\n\ngo 1.21\n',
        'a/a.go': 'package a\n\nfunc One() int { return 1 }\n',
        'a/a_test.go': 'package a\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal("one")\n\t}\n}\n',
        'b/b.go': 'package b\n\nfunc Two() int { return missing() }\n',
        'b/b_test.go': 'package b\n\nimport "testing"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal("two")\n\t}\n}\n',
      },
      { 'b/b_test.go': 'package b\n\nimport "testing"\n\nfunc TestTwo(t *testing.T) {\n\tt.Skip("off")\n}\n' },
    );
    const { code, report } = await check(repo, ['G8']);
    const file = report.coverage?.find((c) => c.scope === 'file b/b_test.go');
    expect(file?.status).toBe('not-run');
    expect(report.decision.conclusion).not.toBe('success');
    expect(report.decision.reason).toMatch(/not verified: .*b\/b_test\.go/);
    expect(code).toBe(4);
  });
  it('no test setup at all: nothing was expected, so the run passes; a Gradle build found but not run is not verified', async () => {
    const plain = prRepo({ 'notes.txt': 'a\n' }, { 'notes.txt': 'b\n' });
    const none = await check(plain, ['G8', 'G2']);
    expect(none.report.decision.conclusion).toBe('success');
    expect(none.code).toBe(0);
    expect(none.report.coverage?.find((c) => c.check === 'G8')?.status).toBe('skipped');
    const gradle = prRepo({ 'build.gradle': "plugins { id 'java' }\n", 'src/A.java': 'class A {}\n' }, { 'src/A.java': 'class A { }\n' });
    const gap = await check(gradle, ['G8', 'G2']);
    expect(gap.report.decision.reason).toMatch(/^not verified: the suite did not start at the base or the head — Gradle build/);
    expect(gap.code).toBe(4);
  });
});
