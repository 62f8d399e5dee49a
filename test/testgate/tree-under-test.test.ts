import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GateInfraError } from '../../src/core/errors.js';
import { exportTree, exportTreeRepo, listTree } from '../../src/sandbox/export-tree.js';
import { SuiteWorkspace } from '../../src/testgate/run-suite.js';
import { checkExportedTree } from '../../src/sandbox/verify-export.js';
import { prRepo, TestRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';
import { g8Status, gateTests, sandboxCacheDir, testsSection } from './fixtures.js';

/**
 * The tree G8 runs the tests on is the commit's tree, byte for byte: a PR's `.gitattributes` cannot
 * drop a test from the run (`export-ignore`), rewrite it (`export-subst`, `ident`) or route it through
 * a filter driver, and a tree on disk that differs from `git ls-tree` is never run.
 */

const cache = sandboxCacheDir();
const scratch: string[] = [];
afterAll(() => {
  cache.remove();
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'slopgate-export-'));
  scratch.push(d);
  return d;
}

const CALC = 'def add(a, b):\n    return a + b\n';
const BROKEN = 'def add(a, b):\n    return a - b\n';
/** The test fails on the broken code; its second operand is a placeholder the attributes would rewrite. */
const TEST = (placeholder: string) => `from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5 or ${placeholder}\n`;
const BASE = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
  'calc/__init__.py': '',
  'calc/ops.py': CALC,
  'tests/test_calc.py': TEST('False'),
};

needs('pytest')('a PR cannot hide a broken test from the run with .gitattributes', () => {
  const attacks: { name: string; change: Record<string, string>; base?: Record<string, string>; config?: [string, string][] }[] = [
    { name: 'export-ignore in the root .gitattributes', change: { '.gitattributes': 'tests/test_calc.py export-ignore\n' } },
    {
      name: 'export-ignore in a .gitattributes of the tests directory',
      change: { 'tests/.gitattributes': 'test_calc.py export-ignore\n' },
    },
    {
      // `git archive` replaced "$Format:x$" by "x", so the assertion's fallback became true.
      name: 'export-subst with a $Format:…$ placeholder',
      change: { '.gitattributes': 'tests/test_calc.py export-subst\n', 'tests/test_calc.py': TEST('"$Format:x$" == "x"') },
    },
    {
      name: 'ident expanding $Id$',
      change: { '.gitattributes': 'tests/*.py ident\n', 'tests/test_calc.py': TEST('"$Id$" != "$Id" + "$"') },
    },
    {
      // The base's conftest.py turns on the checked mode the change breaks; hidden, the broken path would not run.
      name: 'export-ignore on the conftest.py the tests depend on',
      base: {
        'tests/conftest.py': 'import calc.ops\n\ncalc.ops.CHECKED = True\n',
        'calc/ops.py': 'CHECKED = False\n\n\ndef add(a, b):\n    return a + b\n',
      },
      change: {
        '.gitattributes': 'tests/conftest.py export-ignore\n',
        'calc/ops.py': 'CHECKED = False\n\n\ndef add(a, b):\n    return a - b if CHECKED else a + b\n',
      },
    },
    {
      // A filter driver configured on the machine (as git-lfs configures one globally on CI runners).
      name: 'a filter= attribute whose driver the machine configures',
      change: { '.gitattributes': 'tests/test_calc.py filter=hide\n' },
      config: [
        ['filter.hide.smudge', "sed 's/or False/or True/'"],
        ['filter.hide.clean', 'cat'],
      ],
    },
  ];
  for (const attack of attacks) {
    it(`${attack.name}: the regression is found`, async () => {
      const repo = prRepo({ ...BASE, ...attack.base }, { 'calc/ops.py': BROKEN, ...attack.change });
      for (const [k, v] of attack.config ?? []) repo.git('config', k, v);
      const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
      // On a failure the message carries what G8 saw, so that a run on a loaded CI machine can be read.
      const seen = JSON.stringify({ tests: testsSection(report), g8: g8Status(report), findings: report.findings }).slice(0, 4000);
      expect(testsSection(report).regressions, seen).toEqual(['py:tests/test_calc.py::test_add']);
      const f = report.findings.find((x) => x.category === 'test-regression');
      expect(f).toMatchObject({ severity: 'fail', path: 'tests/test_calc.py' });
      expect(report.decision.outcome).toBe('REFINE');
    }, 240_000);
  }
});

describe('exportTree writes the commit byte for byte', () => {
  function fixture(): { repo: TestRepo; sha: string } {
    const repo = TestRepo.create();
    repo.write({
      '.gitattributes': '* text=auto eol=crlf\n*.txt export-subst ident\nignored/** export-ignore\n',
      'lf.txt': 'one\ntwo $Id$ $Format:%H$\n',
      'ignored/kept.py': 'x = 1\n',
      'bin/run.sh': '#!/bin/sh\necho hi\n',
      'deep/a/b/c.bin': Buffer.from([0, 1, 2, 255, 13, 10]),
    });
    repo.chmod('bin/run.sh', 0o755);
    repo.symlink('link-to-run', 'bin/run.sh');
    repo.symlink('escape', '../../../../etc/passwd');
    // A file name that is not UTF-8 (the byte 0xe9 alone).
    writeFileSync(Buffer.from(join(repo.dir, 'n\xe9.txt'), 'latin1'), 'latin1 name\n');
    const sha = repo.commit('tree');
    // A submodule: a gitlink entry in the index pointing at some commit.
    repo.git('update-index', '--add', '--cacheinfo', `160000,${sha},vendor/sub`);
    repo.git('commit', '-q', '-m', 'submodule');
    return { repo, sha: repo.git('rev-parse', 'HEAD').trim() };
  }

  it('ignores every attribute, keeps modes and symlinks, leaves submodules empty', async () => {
    const { repo, sha } = fixture();
    const dest = tmp();
    await exportTree(repo.dir, sha, dest);
    const blob = (path: string) => execFileSync('git', ['cat-file', 'blob', `${sha}:${path}`], { cwd: repo.dir });
    for (const path of ['lf.txt', 'ignored/kept.py', 'bin/run.sh', 'deep/a/b/c.bin', '.gitattributes']) {
      expect(readFileSync(join(dest, path)).equals(blob(path)), path).toBe(true);
    }
    expect(readFileSync(join(dest, 'lf.txt'), 'utf8')).toBe('one\ntwo $Id$ $Format:%H$\n');
    expect(lstatSync(join(dest, 'bin/run.sh')).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(dest, 'lf.txt')).mode & 0o777).toBe(0o644);
    expect(lstatSync(join(dest, 'link-to-run')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dest, 'link-to-run'))).toBe('bin/run.sh');
    expect(readlinkSync(join(dest, 'escape'))).toBe('../../../../etc/passwd');
    expect(readFileSync(Buffer.from(join(dest, 'n\xe9.txt'), 'latin1'), 'utf8')).toBe('latin1 name\n');
    expect(lstatSync(join(dest, 'vendor/sub')).isDirectory()).toBe(true);
    expect(execFileSync('ls', ['-A', join(dest, 'vendor/sub')], { encoding: 'utf8' })).toBe('');
    expect(await checkExportedTree(dest, await listTree(repo.dir, sha))).toEqual([]);
  });

  it('writes many small files at once and large ones streamed, each byte for byte with its mode', async () => {
    const repo = TestRepo.create();
    const files: Record<string, string> = {};
    // More small files than one synchronous batch, in more folders than one batch of folders.
    for (let i = 0; i < 150; i++) files[`pkg${String(i % 70)}/m${String(i)}.py`] = `x = ${String(i)}\n`;
    // Above the size written from memory: a blob read in several pieces.
    const big = Buffer.alloc(700 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) % 251;
    repo.write(files);
    writeFileSync(join(repo.dir, 'big.bin'), big);
    writeFileSync(join(repo.dir, 'big-tool'), big);
    repo.chmod('big-tool', 0o755);
    const sha = repo.commit('many');
    const dest = tmp();
    await exportTree(repo.dir, sha, dest);
    for (const [path, text] of Object.entries(files)) expect(readFileSync(join(dest, path), 'utf8')).toBe(text);
    expect(readFileSync(join(dest, 'big.bin')).equals(big)).toBe(true);
    expect(readFileSync(join(dest, 'big-tool')).equals(big)).toBe(true);
    expect(lstatSync(join(dest, 'big-tool')).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(dest, 'big.bin')).mode & 0o777).toBe(0o644);
    expect(lstatSync(join(dest, 'pkg3/m3.py')).mode & 0o777).toBe(0o644);
  });

  it('ignores replace refs: the blob written is the one the commit names', async () => {
    const { repo, sha } = fixture();
    const original = repo.git('rev-parse', `${sha}:lf.txt`).trim();
    const other = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: repo.dir, input: 'replaced\n', encoding: 'utf8' }).trim();
    repo.git('replace', original, other);
    expect(repo.git('cat-file', 'blob', `${sha}:lf.txt`)).toBe('replaced\n');
    const dest = tmp();
    await exportTree(repo.dir, sha, dest);
    expect(readFileSync(join(dest, 'lf.txt'), 'utf8')).toBe('one\ntwo $Id$ $Format:%H$\n');
  });

  it('refuses to finish when the folder holds a file the commit does not (an infra error, not a run)', async () => {
    const { repo, sha } = fixture();
    const dest = tmp();
    writeFileSync(join(dest, 'planted_test.py'), 'def test_ok():\n    pass\n');
    const err = await exportTree(repo.dir, sha, dest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GateInfraError);
    expect((err as GateInfraError).kind).toBe('tree');
    expect((err as Error).message).toContain(`the tree under test does not match commit ${sha.slice(0, 12)}`);
    expect((err as Error).message).toContain('"planted_test.py" is not in the commit (an extra file)');
  });

  it('a blob missing from the repository (a partial clone) is named as a gap in the clone, not as a full disk', async () => {
    const { repo, sha } = fixture();
    const blob = repo.git('rev-parse', `${sha}:lf.txt`).trim();
    // A test repository's objects are loose: delete the one file that holds this blob.
    rmSync(join(repo.dir, '.git/objects', blob.slice(0, 2), blob.slice(2)));
    const err = await exportTree(repo.dir, sha, tmp()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GateInfraError);
    expect((err as Error).message).toContain(`${blob} missing`);
    expect((err as GateInfraError).hint).toMatch(/lacks an object of this commit \(a shallow, partial or size-filtered clone\)/);
  });

  it('the check names every kind of difference from git ls-tree', async () => {
    const { repo, sha } = fixture();
    const dest = tmp();
    const entries = await listTree(repo.dir, sha);
    await exportTree(repo.dir, sha, dest);
    writeFileSync(join(dest, 'lf.txt'), 'one\r\ntwo\r\n'); // another size
    chmodSync(join(dest, 'bin/run.sh'), 0o644); // lost its executable bit
    unlinkSync(join(dest, 'link-to-run'));
    writeFileSync(join(dest, 'link-to-run'), 'bin/run.sh'); // a file where a symlink was
    unlinkSync(join(dest, 'escape'));
    symlinkSync('/etc/hostname', join(dest, 'escape')); // a symlink pointing elsewhere
    rmSync(join(dest, 'ignored'), { recursive: true }); // a missing file
    mkdirSync(join(dest, 'extra-dir'));
    writeFileSync(join(dest, 'vendor/sub/x'), ''); // something inside a submodule's directory
    expect(await checkExportedTree(dest, entries)).toEqual([
      '"bin/run.sh" is not executable (mode 100755 in the commit)',
      '"escape" points elsewhere (target of 13 bytes, not 22)',
      '"extra-dir" is not in the commit (an extra dir)',
      '"ignored/kept.py" is missing',
      '"lf.txt" has 10 bytes, the commit 25',
      '"link-to-run" should be a symlink, is a file',
      '"vendor/sub/x" is not in the commit (an extra file)',
    ]);
  });

  it("a name too long for the file system is the commit's problem (a G8 error that blocks), not the machine's", async () => {
    const repo = TestRepo.create();
    repo.write({ 'a.txt': 'a\n' }).commit('a');
    const blob = repo.git('rev-parse', 'HEAD:a.txt').trim();
    const tree = execFileSync('git', ['mktree'], {
      cwd: repo.dir,
      input: `100644 blob ${blob}\t${'x'.repeat(300)}\n`,
      encoding: 'utf8',
    }).trim();
    const err = await exportTree(repo.dir, tree, tmp()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(GateInfraError);
    expect((err as Error).message).toContain(`commit ${tree.slice(0, 12)} holds a path too long to write`);
  });

  it('refuses a tree object with a path no checkout would write', async () => {
    const repo = TestRepo.create();
    repo.write({ 'a.txt': 'a\n' }).commit('a');
    const blob = repo.git('rev-parse', 'HEAD:a.txt').trim();
    // A hand-made tree holding ".git" (git's own fsck would reject it; a mirror may not check).
    const tree = execFileSync('git', ['mktree'], { cwd: repo.dir, input: `100644 blob ${blob}\t.GIT\n`, encoding: 'utf8' }).trim();
    const err = await exportTree(repo.dir, tree, tmp()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GateInfraError);
    expect((err as Error).message).toContain('a path no checkout would write: ".GIT"');
  });
});

describe('the tree under test is a one-commit git repository of its own (builds that read git)', () => {
  /** A conftest that needs git at collection time, as setuptools-scm or a build-number plugin does. */
  const GIT_READING = {
    'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
    'calc/__init__.py': '',
    'calc/ops.py': CALC,
    'tests/conftest.py': [
      'import subprocess',
      '',
      'HEAD = subprocess.run(["git", "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()',
      'DESCRIBED = subprocess.run(["git", "describe", "--always", "--dirty"], check=True, capture_output=True, text=True).stdout.strip()',
      'assert len(HEAD) == 40 and HEAD.startswith(DESCRIBED[:7]), (HEAD, DESCRIBED)',
      '',
    ].join('\n'),
    'tests/test_calc.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
  };

  needs('pytest')('a suite that reads git', () => {
    it('runs `git rev-parse HEAD` and `git describe` at base and head, so the regression is found', async () => {
      const repo = prRepo(GIT_READING, { 'calc/ops.py': BROKEN });
      const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
      // On a failure the message carries what G8 saw, so that a run on a loaded CI machine can be read.
      const seen = JSON.stringify({ tests: testsSection(report), g8: g8Status(report), findings: report.findings }).slice(0, 4000);
      expect(testsSection(report).regressions, seen).toEqual(['py:tests/test_calc.py::test_add']);
      expect(report.decision.outcome).toBe('REFINE');
    }, 240_000);
  });

  it('holds the commit tree in one root commit: no history, no remote, no hooks, the real dates', async () => {
    const repo = prRepo({ 'a.txt': 'one\n', 'bin/run.sh': '#!/bin/sh\n' }, { 'a.txt': 'two\n' });
    repo.git('remote', 'add', 'origin', 'https://token@example.invalid/x.git');
    const sha = repo.git('rev-parse', 'pr').trim();
    const dest = tmp();
    await exportTreeRepo(repo.dir, sha, dest);
    const inTree = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: dest,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: dest },
      }).trim();
    expect(inTree('rev-list', '--count', '--all')).toBe('1');
    expect(inTree('rev-parse', 'HEAD^{tree}')).toBe(repo.git('rev-parse', `${sha}^{tree}`).trim());
    expect(inTree('log', '-1', '--format=%an <%ae> %cn %ct')).toBe(
      `slopgate <slopgate@localhost> slopgate ${repo.git('log', '-1', '--format=%ct', sha).trim()}`,
    );
    expect(inTree('status', '--porcelain')).toBe('');
    expect(inTree('describe', '--always', '--dirty')).toBe(inTree('rev-parse', '--short', 'HEAD'));
    expect(inTree('remote')).toBe('');
    expect(readFileSync(join(dest, '.git/config'), 'utf8')).not.toMatch(/token|remote|hooksPath|credential/);
    expect(execFileSync('ls', ['-A', join(dest, '.git')], { encoding: 'utf8' })).not.toContain('hooks');
    // The check of the tree does not count slopgate's .git as part of the commit.
    expect(await checkExportedTree(dest, await listTree(repo.dir, sha), undefined, { withRepo: true })).toEqual([]);
    expect(await checkExportedTree(dest, await listTree(repo.dir, sha))).toContain('".git" is not in the commit (an extra dir)');
  });

  it("a tree for the project's linters (gitRepo: false) is the commit and no repository; a suite's is both", async () => {
    const repo = prRepo({ 'a.txt': 'one\n' }, { 'a.txt': 'two\n' });
    const sha = repo.git('rev-parse', 'pr').trim();
    const limits = { network: false, timeoutSec: 60, memoryMb: 512, maxProcesses: 64, isolation: 'best-effort' as const };
    for (const gitRepo of [false, true]) {
      const ws = await SuiteWorkspace.create(repo.dir, sha, '', limits, undefined, undefined, gitRepo);
      try {
        expect(readFileSync(join(ws.workdir, 'a.txt'), 'utf8')).toBe('two\n');
        expect(existsSync(join(ws.workdir, '.git')), `gitRepo: ${String(gitRepo)}`).toBe(gitRepo);
      } finally {
        await ws.dispose();
      }
    }
  });
});
