import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Finding } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';
import { prRepo, removeTestRepos, type FileContent } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * G16's mypy and clippy through the real CLI: mypy from PyPI, installed for real by G8's dependency
 * stage into the project's virtual environment, and clippy through the machine's cargo on a small
 * crate, both in the sandbox at base and head. Only what the pull request introduced, on lines it
 * changed, is a finding; a missing dependency is never one.
 */

const cache = mkdtempSync(join(tmpdir(), 'slopgate-g16-mypy-clippy-'));
afterAll(() => {
  removeTestRepos();
  rmSync(cache, { recursive: true, force: true });
});

async function check(base: Record<string, FileContent>, head: Record<string, FileContent>): Promise<Report> {
  const repo = prRepo(base, head);
  const saved = process.env.SLOPGATE_DEPS_CACHE_DIR;
  process.env.SLOPGATE_DEPS_CACHE_DIR = cache;
  let out = '';
  try {
    await main(['check', '--repo', repo.dir, '--base', 'main', '--head', 'pr', '--format', 'json', '--only', 'G16'], (s) => (out += s));
  } finally {
    if (saved === undefined) delete process.env.SLOPGATE_DEPS_CACHE_DIR;
    else process.env.SLOPGATE_DEPS_CACHE_DIR = saved;
  }
  return JSON.parse(out) as Report;
}

const g16 = (report: Report): Finding[] => report.findings.filter((f) => f.guard === 'G16');
const records = (report: Report) => report.sections.checks?.checks ?? [];

const workflow = (...runs: string[]) =>
  `name: ci\non: [pull_request]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n${runs.map((r) => `      - run: ${r}\n`).join('')}`;

const OPS = 'class Merger:\n    def merge(self, a: dict[str, int], b: dict[str, int]) -> dict[str, int]:\n        return {**a, **b}\n';
const PY = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\ndependencies = []\n',
  'requirements-dev.txt': 'mypy==1.13.0\n',
  'calc/__init__.py': '',
  'calc/ops.py': OPS,
  'tests/test_ops.py':
    'from calc.ops import Merger\n\n\ndef test_merge():\n    assert Merger().merge({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}\n',
};

needs('python3', 'bwrap')('G16 runs mypy from the project’s Python dependencies in the sandbox (real CLI, PyPI)', () => {
  it('CI runs mypy: a call the object does not have, added by the PR, fails on its line; an import of a package that is not installed is nothing', async () => {
    const report = await check(
      { ...PY, '.github/workflows/ci.yml': workflow('pip install -r requirements-dev.txt', 'mypy calc') },
      {
        'calc/config.py': [
          'import yaml_that_is_not_installed',
          'from calc.ops import Merger',
          '',
          'config_merger = {"merge": Merger()}',
          '',
          '',
          'def merged(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:',
          '    return config_merger.merge(a, b)',
          '',
        ].join('\n'),
      },
    );
    const found = g16(report);
    expect(found.map((f) => [f.cause, f.path, f.line, f.severity, f.category])).toEqual([
      ['mypy', 'calc/config.py', 8, 'fail', 'lint-violation'],
    ]);
    expect(found[0]!.message).toContain('`mypy` rejects line 8 of calc/config.py, which the pull request changed:');
    expect(found[0]!.message).toContain(': `attr-defined: "dict[str, Merger]" has no attribute "merge"`.');
    expect(found[0]!.message).toContain('.github/workflows/ci.yml: `mypy calc`');
    expect(found[0]!.remediation).toBe('Fix what mypy reports on line 8 and check with `mypy calc/config.py` before pushing again.');
    expect(found[0]!.evidence).toEqual({ tool: 'mypy', rule: 'attr-defined', source: '.github/workflows/ci.yml: mypy calc' });
    expect(records(report)).toEqual([expect.objectContaining({ tool: 'mypy', status: 'ran', severity: 'fail', files: 1 })]);
  }, 600_000);

  it('an error already at the base is not the PR’s; an import of a missing package alone is nothing', async () => {
    const bad = `${OPS}\n\ndef broken() -> int:\n    return "one"\n`;
    const report = await check(
      { ...PY, 'calc/ops.py': bad, '.github/workflows/ci.yml': workflow('mypy calc') },
      {
        // the PR moves the old error down a line and adds an import of a package nobody installs
        'calc/ops.py': `import not_installed_anywhere\n${bad}\n\ndef fine() -> int:\n    return 1\n`,
      },
    );
    expect(g16(report)).toEqual([]);
    expect(records(report)).toEqual([expect.objectContaining({ tool: 'mypy', status: 'ran', files: 1 })]);
  }, 600_000);

  it('run only from the Makefile: a risk; a file under mypy’s `exclude` is not judged, `--strict` from the command applies, and its Any errors from a missing dependency do not count', async () => {
    const report = await check(
      {
        ...PY,
        Makefile: 'typecheck:\n\tmypy --strict .\n',
        'mypy.ini': '[mypy]\nexclude = (?x)(\n    ^scripts/   # one-off tools\n  )\n',
        'scripts/tool.py': 'def run() -> None:\n    pass\n',
      },
      {
        // --strict: an unannotated function is an error; subclassing or returning what comes from a missing package (Any) would be too
        'calc/extra.py': [
          'from not_installed_anywhere import Base, make',
          '',
          '',
          'def double(x):',
          '    return x * 2',
          '',
          '',
          'class Thing(Base):',
          '    pass',
          '',
          '',
          'def build() -> int:',
          '    return make()',
          '',
        ].join('\n'),
        'scripts/tool.py': 'def run() -> None:\n    pass\n\n\ndef other() -> int:\n    return "x"\n',
      },
    );
    const found = g16(report);
    expect(found.map((f) => [f.cause, f.path, f.line, f.severity])).toEqual([['mypy', 'calc/extra.py', 4, 'risk']]);
    expect(found[0]!.message).toContain('no-untyped-def');
    expect(found[0]!.message).toContain('The project runs it locally (Makefile: `mypy --strict .`), not in CI.');
    expect(records(report)).toEqual([expect.objectContaining({ tool: 'mypy', status: 'ran', severity: 'risk', files: 1 })]);
  }, 600_000);

  it('a mypy older than 1.11 (no JSON output): its usual lines are read, with the same rules', async () => {
    const report = await check(
      { ...PY, 'requirements-dev.txt': 'mypy==1.10.1\n', '.github/workflows/ci.yml': workflow('mypy calc') },
      { 'calc/ops.py': `import not_installed_anywhere\n${OPS}\n\ndef broken() -> int:\n    return "one"\n` },
    );
    expect(g16(report).map((f) => [f.cause, f.path, f.line, f.severity])).toEqual([['mypy', 'calc/ops.py', 8, 'fail']]);
    expect(g16(report)[0]!.message).toContain('`return-value: Incompatible return value type (got "str", expected "int")`');
  }, 600_000);

  it('mypy in CI but not among the project’s dependencies: a skip with that cause, never a finding', async () => {
    const report = await check(
      { ...PY, 'requirements-dev.txt': '', '.github/workflows/ci.yml': workflow('mypy calc') },
      { 'calc/ops.py': `${OPS}\n\ndef broken() -> int:\n    return "one"\n` },
    );
    expect(g16(report)).toEqual([]);
    expect(records(report)).toEqual([
      expect.objectContaining({
        tool: 'mypy',
        status: 'skipped',
        reason: expect.stringContaining("mypy is not installed in the project's Python dependencies"),
      }),
    ]);
  }, 600_000);
});

const CRATE = {
  'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
  'src/lib.rs': '/// Adds two numbers.\npub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n',
};
const NEEDLESS = '\n/// Doubles a number.\npub fn double(x: i64) -> i64 {\n    return x * 2;\n}\n';

needs(
  'cargo',
  'clippy',
  'bwrap',
)('G16 runs cargo clippy in the sandbox (real CLI)', () => {
  it('CI runs `cargo clippy -- -D warnings`: a new lint on a changed line fails; the lint already at the base is not the PR’s', async () => {
    // the base already has one needless return; the PR adds another
    const base = { ...CRATE, 'src/lib.rs': `${CRATE['src/lib.rs']}${NEEDLESS}` };
    const report = await check(
      { ...base, '.github/workflows/ci.yml': workflow('cargo clippy --all-targets -- -D warnings') },
      { 'src/lib.rs': `${base['src/lib.rs']}\n/// Triples a number.\npub fn triple(x: i64) -> i64 {\n    return x * 3;\n}\n` },
    );
    const found = g16(report);
    expect(found.map((f) => [f.cause, f.path, f.line, f.severity, f.category])).toEqual([
      ['clippy', 'src/lib.rs', 13, 'fail', 'lint-violation'],
    ]);
    expect(found[0]!.message).toContain(
      '`cargo clippy` rejects line 13 of src/lib.rs, which the pull request changed: ``clippy::needless_return: unneeded `return` statement``.',
    );
    expect(found[0]!.message).toContain('.github/workflows/ci.yml: `cargo clippy --all-targets -- -D warnings`');
    expect(found[0]!.remediation).toBe(
      'Fix what clippy reports on line 13 and check with `cargo clippy --all-targets` before pushing again.',
    );
    expect(records(report)).toEqual([expect.objectContaining({ tool: 'clippy', status: 'ran', severity: 'fail', files: 1 })]);
  }, 600_000);

  it('a crate with a registry dependency: clippy builds offline from the crates G8 vendored, and reports only the PR’s lint', async () => {
    const crate = {
      'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nitoa = "=1.0.11"\n',
      'src/lib.rs': '/// Formats a number.\npub fn show(n: u64) -> String {\n    itoa::Buffer::new().format(n).to_owned()\n}\n',
      '.github/workflows/ci.yml': workflow('cargo clippy --all-targets -- -D warnings'),
    };
    const report = await check(crate, {
      'src/lib.rs': `${crate['src/lib.rs']}\n/// Is it empty?\npub fn empty(s: &str) -> bool {\n    s.len() == 0\n}\n`,
    });
    expect(g16(report).map((f) => [f.cause, f.path, f.line, f.severity, (f.evidence as { rule?: string }).rule])).toEqual([
      ['clippy', 'src/lib.rs', 8, 'fail', 'clippy::len_zero'],
    ]);
    expect(records(report)).toEqual([expect.objectContaining({ tool: 'clippy', status: 'ran', severity: 'fail' })]);
  }, 600_000);

  it('CI runs clippy without denying warnings: a new warning is a risk; a lint the crate denies is still a failure', async () => {
    const report = await check(
      { ...CRATE, 'src/strict.rs': '', '.github/workflows/ci.yml': workflow('cargo clippy') },
      {
        'src/lib.rs': `pub mod strict;\n${CRATE['src/lib.rs']}${NEEDLESS}`,
        'src/strict.rs': '#![deny(clippy::needless_return)]\n\n/// Halves a number.\npub fn half(x: i64) -> i64 {\n    return x / 2;\n}\n',
      },
    );
    const found = g16(report)
      .map((f) => [f.path, f.line, f.severity])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(found).toEqual([
      ['src/lib.rs', 9, 'risk'],
      ['src/strict.rs', 5, 'fail'],
    ]);
    const warn = g16(report).find((f) => f.path === 'src/lib.rs')!;
    expect(warn.message).toContain('`cargo clippy` warns about line 9 of src/lib.rs');
    expect(warn.message).toContain('without denying warnings');
  }, 600_000);
});
