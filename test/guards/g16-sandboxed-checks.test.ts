import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Finding } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';
import { splitCodeSpans } from '../../src/report/markdown-escape.js';
import { prRepo, removeTestRepos, type FileContent } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * G16's sandboxed tools through the real CLI: ruff and black from PyPI, prettier, eslint and
 * typescript from npm, installed for real by G8's dependency stage into one dependency cache per
 * ecosystem that every test of this file shares (the same dependency files give the same entry, so
 * each ecosystem is installed once). The tools run in the sandbox at base and head; only what the
 * pull request introduced, on lines it changed, is a finding.
 */

const cache = mkdtempSync(join(tmpdir(), 'slopgate-g16-deps-'));
afterAll(() => {
  removeTestRepos();
  rmSync(cache, { recursive: true, force: true });
});

async function check(
  base: Record<string, FileContent>,
  head: Record<string, FileContent>,
  extra: string[] = ['--only', 'G16'],
): Promise<Report> {
  const repo = prRepo(base, head);
  const saved = process.env.SLOPGATE_DEPS_CACHE_DIR;
  process.env.SLOPGATE_DEPS_CACHE_DIR = cache;
  let out = '';
  try {
    await main(['check', '--repo', repo.dir, '--base', 'main', '--head', 'pr', '--format', 'json', ...extra], (s) => (out += s));
  } finally {
    if (saved === undefined) delete process.env.SLOPGATE_DEPS_CACHE_DIR;
    else process.env.SLOPGATE_DEPS_CACHE_DIR = saved;
  }
  return JSON.parse(out) as Report;
}

const g16 = (report: Report): Finding[] => report.findings.filter((f) => f.guard === 'G16');
const records = (report: Report) => report.sections.checks?.checks ?? [];
/** Entries of every scope of the dependency cache whose key starts with `prefix`. */
const entries = (prefix: string) =>
  ['shared', 'tree'].flatMap((s) => (existsSync(join(cache, s)) ? readdirSync(join(cache, s)) : [])).filter((n) => n.startsWith(prefix));

const workflow = (...runs: string[]) =>
  `name: ci\non: [pull_request]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n${runs.map((r) => `      - run: ${r}\n`).join('')}`;

/** ruff only: black is not among the project's dependencies. */
const PY = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\ndependencies = []\n',
  'requirements-dev.txt': 'ruff==0.8.4\n',
  'calc/__init__.py': '',
  'calc/ops.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
};

needs('python3', 'bwrap')('G16 runs ruff from the project’s Python dependencies in the sandbox (real CLI, PyPI)', () => {
  it('CI runs `ruff check` and `ruff format --check`: an unused import and an unformatted line the PR adds fail, each on its line', async () => {
    const report = await check(
      { ...PY, '.github/workflows/ci.yml': workflow('ruff check .', 'ruff format --check .') },
      { 'calc/ops.py': 'import os\n\n\ndef add(a, b):\n    return a + b\n\n\ndef sub(a,b):\n    return a-b\n' },
    );
    const found = g16(report);
    expect(found.map((f) => [f.cause, f.path, f.line, f.severity, f.category])).toEqual([
      ['ruff-check', 'calc/ops.py', 1, 'fail', 'lint-violation'],
      ['ruff-format', 'calc/ops.py', 8, 'fail', 'lint-violation'],
    ]);
    // the tool's own words, as one code span
    expect(found[0]!.message).toContain('``F401: `os` imported but unused``');
    expect(found[0]!.message).toContain('.github/workflows/ci.yml: `ruff check .`');
    expect(found[1]!.message).toContain('`ruff format --check` rejects calc/ops.py');
    expect(found[1]!.suggestion).toEqual({
      path: 'calc/ops.py',
      startLine: 8,
      endLine: 9,
      replacement: 'def sub(a, b):\n    return a - b',
    });
    expect(found[1]!.remediation).toBe('Run `ruff format calc/ops.py` and commit the result.');
    expect(records(report).map((r) => [r.tool, r.status, r.severity])).toEqual([
      ['ruff-check', 'ran', 'fail'],
      ['ruff-format', 'ran', 'fail'],
    ]);
    expect(entries('python-')).toHaveLength(1);
  }, 600_000);

  it('what ruff already rejects at the base is not the PR’s doing; a new line elsewhere in the file passes', async () => {
    const messy = 'import os\nimport sys\n\n\ndef add(a,b):\n    return a+b\n';
    const report = await check(
      { ...PY, 'calc/ops.py': messy, '.github/workflows/ci.yml': workflow('ruff check .', 'ruff format --check .') },
      // the PR adds a clean function and touches nothing ruff complains about at the base
      { 'calc/ops.py': `${messy}\n\ndef sub(a, b):\n    return a - b\n` },
    );
    expect(g16(report)).toEqual([]);
    expect(records(report).map((r) => [r.tool, r.status])).toEqual([
      ['ruff-check', 'ran'],
      ['ruff-format', 'ran'],
    ]);
  }, 600_000);

  it('ruff run by pre-commit/action in a step with continue-on-error: reported as a risk naming that step, not a failure', async () => {
    const wf = `name: ci\non: [pull_request]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: pre-commit/action@v3.0.1\n        continue-on-error: true\n`;
    const hooks = 'repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.8.4\n    hooks:\n      - id: ruff-format\n';
    const report = await check(
      { ...PY, '.github/workflows/ci.yml': wf, '.pre-commit-config.yaml': hooks },
      { 'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef sub(a,b):\n    return a-b\n' },
    );
    const found = g16(report);
    expect(found.map((f) => [f.cause, f.line, f.severity])).toEqual([['ruff-format', 5, 'risk']]);
    expect(found[0]!.message).toContain('.pre-commit-config.yaml: `hook ruff-format`');
    expect(found[0]!.message).toContain('step `pre-commit/action@v3.0.1`) has `continue-on-error: true`');
    expect(records(report).map((r) => [r.tool, r.status, r.severity])).toEqual([['ruff-format', 'ran', 'risk']]);
  }, 600_000);

  it('a check whose tool is not among the project’s dependencies is skipped with that cause, never a finding', async () => {
    const report = await check(
      { ...PY, '.github/workflows/ci.yml': workflow('black --check .') },
      { 'calc/ops.py': 'def add(a,b):\n    return a+b\n' },
    );
    expect(g16(report)).toEqual([]);
    expect(records(report)).toEqual([
      expect.objectContaining({
        tool: 'black',
        status: 'skipped',
        reason: expect.stringContaining("black is not installed in the project's Python dependencies"),
      }),
    ]);
    expect(report.guards.find((g) => g.id === 'G16')?.status).toBe('skipped');
  }, 600_000);

  // The earlier tests ran G16 alone, so the cache's one entry is the environment G16 installed: G8 gets that same entry.
  // (Run together, G8 and G16 may reach the entry in either order; the cache's lock lets one install and the other wait.)
  it('G16 and G8 share one install: G8 uses the very cache entry G16 prepared', async () => {
    const report = await check(
      { ...PY, '.github/workflows/ci.yml': workflow('ruff check .') },
      { 'calc/ops.py': 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n' },
      ['--only', 'G16,G8'],
    );
    expect(records(report)).toEqual([expect.objectContaining({ tool: 'ruff-check', status: 'ran' })]);
    const base = report.sections.tests?.dependencies?.base;
    expect(base).toMatchObject({ ecosystem: 'python', status: expect.stringMatching(/^(cached|installed)$/) });
    expect(report.sections.tests?.candidate).toMatchObject({ failing: 0, total: 1 });
    expect(entries('python-')).toEqual([base?.key]);
  }, 600_000);

  it('prettier in the workflow of a project without package.json: not in its node_modules, so a skip with that cause', async () => {
    const report = await check(
      { ...PY, '.github/workflows/ci.yml': workflow('npx prettier --check .'), 'README.md': '# calc\n' },
      { 'README.md': '# calc\n\n*  messy   list\n' },
    );
    expect(g16(report)).toEqual([]);
    expect(records(report)).toEqual([
      expect.objectContaining({
        tool: 'prettier',
        status: 'skipped',
        reason: expect.stringContaining("prettier is not installed in the project's node_modules"),
      }),
    ]);
  }, 120_000);

  it('with --no-tests nothing is installed: the sandboxed checks are skipped with that cause', async () => {
    const report = await check({ ...PY, '.github/workflows/ci.yml': workflow('ruff check .') }, { 'calc/ops.py': 'import os\n' }, [
      '--only',
      'G16',
      '--no-tests',
    ]);
    expect(g16(report)).toEqual([]);
    expect(report.guards.find((g) => g.id === 'G16')?.reason).toBe(
      "ruff-check: it needs the project's dependencies, which slopgate installs only with tests on (--no-tests)",
    );
  }, 60_000);
});

/** black only, in a second environment: the one install the black test needs. */
const PY_BLACK = { ...PY, 'requirements-dev.txt': 'black==24.10.0\n' };

needs('python3', 'bwrap')('G16 runs black from the project’s Python dependencies in the sandbox (real CLI, PyPI)', () => {
  it('pre-commit.ci runs the black hook: a long call the PR writes on one line is a failure with black’s layout as the fix', async () => {
    const preCommit =
      'ci:\n  autofix_prs: false\nrepos:\n  - repo: https://github.com/psf/black\n    rev: 24.10.0\n    hooks:\n      - id: black\n';
    const long = "    return {'alpha': a, 'beta': b, 'gamma': a + b, 'delta': a - b, 'epsilon': a * b, 'zeta': a % b}\n";
    const report = await check(
      { ...PY_BLACK, '.pre-commit-config.yaml': preCommit, '.github/workflows/ci.yml': workflow('ruff check .') },
      { 'calc/ops.py': `def add(a, b):\n    return a + b\n\n\ndef table(a, b):\n${long}` },
    );
    const found = g16(report);
    expect(found.map((f) => [f.cause, f.path, f.line, f.severity])).toEqual([['black', 'calc/ops.py', 6, 'fail']]);
    expect(found[0]!.message).toContain('`black --check` rejects calc/ops.py');
    expect(found[0]!.message).toContain('.pre-commit-config.yaml: `hook black`');
    expect(found[0]!.suggestion?.replacement).toBe(
      '    return {\n        "alpha": a,\n        "beta": b,\n        "gamma": a + b,\n        "delta": a - b,\n        "epsilon": a * b,\n        "zeta": a % b,\n    }',
    );
    // ruff is in the workflow but not in this environment: a skip with the cause, next to black's run
    expect(records(report).map((r) => [r.tool, r.status])).toEqual([
      ['ruff-check', 'skipped'],
      ['black', 'ran'],
    ]);
    expect(records(report)[0]!.reason).toContain("ruff is not installed in the project's Python dependencies");
  }, 600_000);
});

const PKG = JSON.stringify(
  {
    name: 'calc',
    private: true,
    type: 'module',
    scripts: { lint: 'eslint . && prettier --check . && tsc --noEmit' },
    devDependencies: { eslint: '9.17.0', prettier: '3.4.2', typescript: '5.7.2' },
  },
  null,
  2,
);
const HOSTILE = 'ping `@maintainers` **merge now** <img src=x onerror=alert(1)> ``` [here](https://example.com) |';
const JS = {
  'package.json': `${PKG}\n`,
  '.github/workflows/ci.yml': workflow('npm ci', 'npm run lint'),
  // a local rule whose message is hostile Markdown: the tool's words must stay inert in the finding
  'eslint.config.js': [
    `const HOSTILE = ${JSON.stringify(HOSTILE)};`,
    "const local = { rules: { 'no-shout': { create: (context) => ({ Literal(node) { if (node.value === 'SHOUT') context.report({ node, message: HOSTILE }); } }) } } };",
    "export default [{ files: ['**/*.ts', '**/*.js'], plugins: { local }, rules: { 'no-unused-vars': 'error', 'no-debugger': 'error', 'local/no-shout': 'error' } }];",
    '',
  ].join('\n'),
  'tsconfig.json':
    '{ "compilerOptions": { "strict": true, "noEmit": true, "target": "ES2022", "module": "ESNext" }, "include": ["src"] }\n',
  '.prettierrc.json': '{ "singleQuote": true }\n',
  'src/calc.js': 'export function add(a, b) {\n  return a + b;\n}\n',
  'src/types.ts': 'export const one: number = 1;\n',
};

needs('bwrap')('G16 runs prettier, eslint and tsc from the project’s node_modules in the sandbox (real CLI, npm)', () => {
  it('CI runs `npm run lint`: a debugger statement, an unformatted line and a type error the PR adds fail on their lines', async () => {
    const report = await check(JS, {
      'src/calc.js': 'export function add(a, b) {\n  return a + b;\n}\n\nexport function sub(a, b) {\n  debugger;\n  return a - b;\n}\n',
      'src/types.ts': "export const one: number = 1;\nexport const two: number = 'two';\n",
      'src/more.js': 'export const x = {a:1};\n',
      'src/shout.js': "export const s = 'SHOUT';\n",
    });
    const found = g16(report)
      .map((f) => [f.cause, f.path, f.line, f.severity])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(found).toEqual([
      ['eslint', 'src/calc.js', 6, 'fail'],
      ['eslint', 'src/shout.js', 1, 'fail'],
      ['prettier', 'src/more.js', 1, 'fail'],
      ['tsc', 'src/types.ts', 2, 'fail'],
    ]);
    const tsc = g16(report).find((f) => f.cause === 'tsc')!;
    expect(tsc.message).toContain("`TS2322: Type 'string' is not assignable to type 'number'.`");
    expect(g16(report).find((f) => f.cause === 'prettier')!.suggestion).toMatchObject({ replacement: 'export const x = { a: 1 };' });
    // the rule's message is one code span: nothing of it is Markdown outside the span
    const shout = g16(report).find((f) => f.path === 'src/shout.js')!;
    const parts = splitCodeSpans(shout.message);
    expect(parts.some((p) => p.code && p.text === `local/no-shout: ${HOSTILE}`)).toBe(true);
    expect(parts.filter((p) => !p.code).some((p) => /@maintainers|<img|\*\*merge/.test(p.text))).toBe(false);
    expect(entries('npm-')).toHaveLength(1);
  }, 900_000);

  it('prettier checks only the paths the project’s command names: a file outside them is not judged', async () => {
    const pkg = JSON.parse(PKG) as { scripts: Record<string, string> };
    pkg.scripts.lint = 'prettier --check src "docs/**/*.md"';
    const report = await check(
      { ...JS, 'package.json': `${JSON.stringify(pkg, null, 2)}\n` },
      { 'docs/guide.md': '# Guide\n\n*  one\n*  two\n', 'notes/todo.md': '# Todo\n\n*  one\n' },
    );
    expect(g16(report).map((f) => [f.cause, f.path, f.line])).toEqual([['prettier', 'docs/guide.md', 3]]);
    expect(records(report)).toEqual([expect.objectContaining({ tool: 'prettier', status: 'ran', files: 1 })]);
    expect(entries('npm-')).toHaveLength(1);
  }, 900_000);

  it('eslint errors and type errors already at the base are not reported; an unchanged file is not judged', async () => {
    const base = {
      ...JS,
      'src/calc.js': 'export function add(a, b) {\n  const unused = 1;\n  return a + b;\n}\n',
      'src/types.ts': 'export const one: number = "one";\n',
    };
    const report = await check(base, {
      'src/calc.js': 'export function add(a, b) {\n  const unused = 1;\n  return a + b;\n}\n\nexport const two = 2;\n',
      'src/types.ts': 'export const one: number = "one";\nexport const three: number = 3;\n',
    });
    expect(g16(report)).toEqual([]);
    expect(records(report).map((r) => [r.tool, r.status])).toEqual([
      ['eslint', 'ran'],
      ['prettier', 'ran'],
      ['tsc', 'ran'],
    ]);
    expect(entries('npm-')).toHaveLength(1);
  }, 900_000);
});

const GO = {
  'go.mod': 'module example.com/calc\n\ngo 1.21\n',
  '.github/workflows/ci.yml': workflow('go vet ./...'),
  'calc/calc.go': 'package calc\n\nimport "fmt"\n\n// Show prints n.\nfunc Show(n int) {\n\tfmt.Printf("%d\\n", n)\n}\n',
};

needs('go', 'bwrap')('G16 runs go vet in the sandbox on the packages a pull request changes (real CLI)', () => {
  it('CI runs `go vet ./...`: a Printf with the wrong argument type the PR adds fails on its line', async () => {
    const report = await check(GO, {
      'calc/calc.go': `${GO['calc/calc.go']}\n// Name prints s.\nfunc Name(s string) {\n\tfmt.Printf("%d\\n", s)\n}\n`,
    });
    const found = g16(report);
    expect(found.map((f) => [f.cause, f.path, f.line, f.severity])).toEqual([['go-vet', 'calc/calc.go', 12, 'fail']]);
    expect(found[0]!.message).toMatch(
      /`go vet` rejects line 12 of calc\/calc\.go, which the pull request changed: `fmt\.Printf format %d has arg s of wrong type string`/,
    );
    expect(found[0]!.remediation).toContain('`go vet ./calc`');
  }, 600_000);

  it('what go vet already reports at the base is not the PR’s doing', async () => {
    const bad = 'package calc\n\nimport "fmt"\n\n// Show prints n.\nfunc Show(n string) {\n\tfmt.Printf("%d\\n", n)\n}\n';
    const report = await check({ ...GO, 'calc/calc.go': bad }, { 'calc/calc.go': `${bad}\n// Two is 2.\nconst Two = 2\n` });
    expect(g16(report)).toEqual([]);
    expect(records(report)).toContainEqual(expect.objectContaining({ tool: 'go-vet', status: 'ran' }));
  }, 600_000);
});
