import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/core/report.js';
import { g17 } from '../../src/guards/g17-type-probe/index.js';
import { declarationsOf, probedErrors } from '../../src/guards/g17-type-probe/py-diagnostics.js';
import { importsOneOf } from '../../src/guards/g17-type-probe/py-tree.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, removeTestRepos, type FileContent } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * G17's Python probe: pyright (slopgate's npm dependency) runs in the test gate's sandbox on the changed
 * Python files and their importers, at base and head, with the environment G8's dependency stage
 * installs (one cache for this file). The main case goes through the real CLI, the others through the
 * real pipeline.
 */

const cache = mkdtempSync(join(tmpdir(), 'slopgate-g17-py-deps-'));
let saved: string | undefined;
beforeAll(() => {
  saved = process.env.SLOPGATE_DEPS_CACHE_DIR;
  process.env.SLOPGATE_DEPS_CACHE_DIR = cache;
});
afterAll(() => {
  if (saved === undefined) delete process.env.SLOPGATE_DEPS_CACHE_DIR;
  else process.env.SLOPGATE_DEPS_CACHE_DIR = saved;
  removeTestRepos();
  rmSync(cache, { recursive: true, force: true });
});

const PROJECT = {
  'pyproject.toml': '[project]\nname = "app"\nversion = "0.1.0"\ndependencies = []\n',
  'app/__init__.py': '',
};

const MERGER = [
  'def deep_merge(base: dict, override: dict) -> dict:',
  '    out = dict(base)',
  '    out.update(override)',
  '    return out',
  '',
  '',
  'class Merger:',
  '    def merge(self, base: dict, override: dict) -> dict:',
  '        return deep_merge(base, override)',
  '',
  '',
  'config_merger = Merger()',
  '',
].join('\n');

const CALLERS = {
  'app/config.py':
    'from app.merger import config_merger\n\n\ndef load(defaults: dict, user: dict) -> dict:\n    return config_merger.merge(defaults, user)\n',
  'app/cli.py':
    'from .merger import config_merger\n\n\ndef run(a: dict, b: dict) -> dict:\n    merged = config_merger.merge(a, b)\n    return merged\n',
};

async function cli(base: Record<string, FileContent>, head: Record<string, FileContent>, extra: string[] = []): Promise<Report> {
  const repo = prRepo(base, head);
  let out = '';
  await main(['check', '--repo', repo.dir, '--base', 'main', '--head', 'pr', '--format', 'json', '--only', 'G17', ...extra], (s) => {
    out += s;
  });
  return JSON.parse(out) as Report;
}

/** G17's findings through the real pipeline; the guard must have run (a skip would make every negative pass). */
async function probe(base: Record<string, FileContent>, head: Record<string, FileContent>) {
  const report = await gate(prRepo(base, head), [g17]);
  const status = report.guards.find((g) => g.id === 'G17');
  expect(status?.status, status?.reason).not.toBe('skipped');
  return findingsOf(report, 'G17');
}

const brief = (found: { path?: string; line?: number; severity: string }[]) => found.map((f) => [f.path, f.line, f.severity]);

needs('python3', 'bwrap')('G17 runs pyright on Python in the sandbox', () => {
  it('the object every caller calls .merge() on becomes a dict: fail on the changed line, naming the callers (real CLI)', async () => {
    const report = await cli(
      { ...PROJECT, 'app/merger.py': MERGER, ...CALLERS },
      { 'app/merger.py': MERGER.replace('config_merger = Merger()', 'config_merger = {"merge": deep_merge}') },
    );
    const found = report.findings.filter((f) => f.guard === 'G17');
    expect(brief(found)).toEqual([['app/merger.py', 12, 'fail']]);
    const f = found[0]!;
    expect(f.category).toBe('invented-api');
    expect(f.message).toContain('This change to `config_merger` breaks app/cli.py:5, app/config.py:5');
    expect(f.message).toContain('Cannot access attribute "merge" for class "dict[');
    expect(f.evidence).toMatchObject({ checker: 'pyright', rule: 'reportAttributeAccessIssue', className: 'dict', certain: true });
    expect(report.guards.find((g) => g.id === 'G17')?.status).toBe('fail');
    expect(report.decision.outcome).not.toBe('PASS');
  }, 600_000);

  it('the pull request’s own pyright configuration is ignored: it cannot switch the probe’s rules off', async () => {
    const off = '{ "typeCheckingMode": "off", "reportAttributeAccessIssue": "none", "exclude": ["app"] }\n';
    const found = await probe(
      { ...PROJECT, 'app/merger.py': MERGER, ...CALLERS },
      {
        'app/merger.py': MERGER.replace('config_merger = Merger()', 'config_merger = {"merge": deep_merge}'),
        'pyrightconfig.json': off,
        'pyproject.toml': `${PROJECT['pyproject.toml']}\n[tool.pyright]\ntypeCheckingMode = "off"\n`,
      },
    );
    expect(brief(found)).toEqual([['app/merger.py', 12, 'fail']]);
  }, 600_000);

  it('an import of a package that is not installed is no finding, nor is anything used from it', async () => {
    const found = await probe(
      { ...PROJECT, 'app/service.py': 'def serve() -> None:\n    return None\n' },
      {
        'app/service.py':
          'import fancy_http_lib\nfrom made_up.client import Client\n\n\ndef serve() -> None:\n    fancy_http_lib.start(port=8080)\n    Client().connect().close()\n',
      },
    );
    expect(found).toEqual([]);
  }, 600_000);

  it('an error that was already there at the base is not the pull request’s, even on a line it changed', async () => {
    const base = {
      ...PROJECT,
      'app/flags.py': 'FLAGS = {"debug": False}\n\n\ndef debug_on() -> bool:\n    return FLAGS.enabled("debug")\n',
    };
    const found = await probe(base, {
      'app/flags.py': 'FLAGS = {"debug": False}\n\n\ndef debug_on() -> bool:\n    return bool(FLAGS.enabled("debug"))\n',
    });
    expect(found).toEqual([]);
  }, 600_000);

  it('a changed signature that an unchanged caller no longer fits is a risk on the def, naming the caller', async () => {
    const base = {
      ...PROJECT,
      'app/store.py': 'def load(path: str) -> str:\n    with open(path) as f:\n        return f.read()\n',
      'app/main.py': 'from app.store import load\n\n\ndef start() -> str:\n    return load("config.ini")\n',
    };
    const found = await probe(base, {
      'app/store.py': 'def load(path: str, strict: bool) -> str:\n    with open(path) as f:\n        return f.read()\n',
    });
    expect(brief(found)).toEqual([['app/store.py', 1, 'risk']]);
    expect(found[0]!.message).toContain('This change to `load` breaks app/main.py:5');
    expect(found[0]!.message).toContain('Argument missing for parameter "strict"');
    expect(found[0]!.evidence).toMatchObject({ rule: 'reportCallIssue', certain: false });
  }, 600_000);

  it('a member a parameter’s declared class lacks, on a changed line, is a risk: pyright knows the annotation, not the value', async () => {
    const base = {
      ...PROJECT,
      'app/jobs.py': 'class Job:\n    def run(self) -> None:\n        pass\n\n\ndef execute(job: Job) -> None:\n    job.run()\n',
    };
    const found = await probe(base, {
      'app/jobs.py':
        'class Job:\n    def run(self) -> None:\n        pass\n\n\ndef execute(job: Job) -> None:\n    job.run()\n    job.cleanup()\n',
    });
    expect(brief(found)).toEqual([['app/jobs.py', 8, 'risk']]);
    expect(found[0]!.evidence).toMatchObject({ subject: 'job', className: 'Job', certain: false });
  }, 600_000);
});

describe('G17 Python probe without its environment', () => {
  it('with tests off there is no virtual environment: G17 is skipped with that cause, never a pass', async () => {
    const report = await cli(
      { ...PROJECT, 'app/merger.py': MERGER, ...CALLERS },
      { 'app/merger.py': MERGER.replace('config_merger = Merger()', 'config_merger = {"merge": deep_merge}') },
      ['--no-tests'],
    );
    expect(report.findings.filter((f) => f.guard === 'G17')).toEqual([]);
    const status = report.guards.find((g) => g.id === 'G17');
    expect(status?.status).toBe('skipped');
    expect(status?.reason).toContain(
      "Python: it needs the project's dependencies, which slopgate installs only with tests on (--no-tests)",
    );
  });
  it('--no-tests with guard threads on (as users run it): G17 installs nothing and says why it skipped (real CLI)', () => {
    const repo = prRepo(
      { ...PROJECT, 'app/merger.py': MERGER, ...CALLERS },
      { 'app/merger.py': MERGER.replace('config_merger = Merger()', 'config_merger = {"merge": deep_merge}') },
    );
    const deps = mkdtempSync(join(tmpdir(), 'slopgate-g17-deps-'));
    try {
      const r = spawnSync(
        join(process.cwd(), 'node_modules', '.bin', 'tsx'),
        [
          join(process.cwd(), 'src', 'cli.ts'),
          'check',
          '--base',
          'main',
          '--head',
          'pr',
          '--format',
          'json',
          '--only',
          'G17',
          '--no-tests',
        ],
        {
          cwd: repo.dir,
          encoding: 'utf8',
          env: { ...process.env, NO_COLOR: '1', SLOPGATE_GUARD_THREADS: '1', SLOPGATE_DEPS_CACHE_DIR: deps },
        },
      );
      const report = JSON.parse(r.stdout) as Report;
      expect(report.guards.find((g) => g.id === 'G17')?.reason).toContain(
        "Python: it needs the project's dependencies, which slopgate installs only with tests on (--no-tests)",
      );
      // A thread without the run's test options used to plan and install the dependencies anyway.
      expect(readdirSync(deps)).toEqual([]);
    } finally {
      rmSync(deps, { recursive: true, force: true });
    }
  });
  it('without a sandbox pyright never reads the tree: a skip with that cause, and the gate does not pass (real CLI)', () => {
    const repo = prRepo(
      { ...PROJECT, 'app/merger.py': MERGER, ...CALLERS },
      { 'app/merger.py': MERGER.replace('config_merger = Merger()', 'config_merger = {"merge": deep_merge}') },
    );
    // SLOPGATE_BWRAP can only make the sandbox stricter: a missing program takes it away (the probe is cached per process)
    const r = spawnSync(
      join(process.cwd(), 'node_modules', '.bin', 'tsx'),
      [join(process.cwd(), 'src', 'cli.ts'), 'check', '--base', 'main', '--head', 'pr', '--format', 'json', '--only', 'G17'],
      { cwd: repo.dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', SLOPGATE_BWRAP: '/nonexistent/slopgate-test/bwrap' } },
    );
    const report = JSON.parse(r.stdout) as Report;
    expect(report.guards.find((g) => g.id === 'G17')).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining(
        "Python: pyright reads the pull request's tree only inside the sandbox: the sandbox cannot be established",
      ),
    });
    expect(report.findings).toEqual([]);
    expect(report.decision.outcome).not.toBe('PASS');
  }, 120_000);
});

describe('G17 Python probe: reading imports and pyright errors', () => {
  it('finds importers through absolute, src-rooted, relative and same-folder imports', () => {
    const changed = new Set(['app/merger.py', 'src/lib/util/__init__.py']);
    expect(importsOneOf('app/a.py', 'from app.merger import x\n', changed)).toBe(true);
    expect(importsOneOf('app/sub/b.py', 'from ..merger import (\n  x,\n  y,\n)\n', changed)).toBe(true);
    expect(importsOneOf('app/c.py', 'import merger\n', changed)).toBe(true);
    expect(importsOneOf('tests/t.py', 'from lib import util\n', changed)).toBe(true);
    expect(importsOneOf('tests/t.py', 'import lib.util as u\n', changed)).toBe(true);
    expect(importsOneOf('other/c.py', 'import merger\n', changed)).toBe(false);
    expect(importsOneOf('app/d.py', 'from app.mergers import x\n', changed)).toBe(false);
  });

  it('keeps attribute and call errors with their subject; drops unresolved imports, Optional access and attribute writes', () => {
    const text = 'import x\nobj.cache = 1\nval.merge(a)\nload(1,\n  2)\nopt.name\n';
    const d = (line: number, column: number, rule: string, message: string) => ({
      path: 'm.py',
      line,
      column,
      endLine: line,
      rule,
      message,
    });
    const kept = probedErrors(
      [
        d(1, 7, 'reportMissingImports', 'Import "x" could not be resolved'),
        d(2, 4, 'reportAttributeAccessIssue', 'Cannot assign to attribute "cache" for class "Obj"'),
        d(2, 4, 'reportAttributeAccessIssue', 'Cannot access attribute "cache" for class "Obj"'),
        d(3, 4, 'reportAttributeAccessIssue', 'Cannot access attribute "merge" for class "dict[str, int]"\n  Attribute "merge" is unknown'),
        d(5, 2, 'reportCallIssue', 'Expected 1 positional argument'),
        d(6, 4, 'reportOptionalMemberAccess', '"name" is not a known attribute of "None"'),
      ],
      new Map([['m.py', text]]),
      () => false,
    );
    expect(kept.map((e) => [e.line, e.kind, e.subject, e.className])).toEqual([
      [3, 'attribute', 'val', 'dict'],
      [5, 'call', 'load', null],
    ]);
  });

  it('a member the code checks for with hasattr() first is not an invented API', () => {
    const text = 'def f(stream: BinaryIO):\n    if hasattr(stream, "buffer"):\n        return stream.buffer\n    return stream.name_x\n';
    const d = (line: number, column: number, member: string) => ({
      path: 'm.py',
      line,
      column,
      endLine: line,
      rule: 'reportAttributeAccessIssue',
      message: `Cannot access attribute "${member}" for class "BinaryIO"`,
    });
    const kept = probedErrors([d(3, 22, 'buffer'), d(4, 18, 'name_x')], new Map([['m.py', text]]), () => false);
    expect(kept.map((e) => [e.line, e.member])).toEqual([[4, 'name_x']]);
  });

  it('finds a name’s declarations: def, class, plain and annotated assignments, self attributes', () => {
    const text = 'def merger():\n    pass\nclass merger2: ...\nmerger = {}\nmerger: dict = {}\nself.merger = 1\nmerger == 1\n';
    expect(declarationsOf('merger', 'm.py', text).map((d) => d.line)).toEqual([1, 4, 5, 6]);
  });
});
