import { describe, expect, it } from 'vitest';
import { g10 } from '../../src/guards/g10-config-schema/index.js';
import { TOOL_ROWS } from '../../src/guards/g10-config-schema/tool-behaviour.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

async function g10Of(head: Record<string, FileContent>, base: Record<string, FileContent> = { 'README.md': 'x\n' }) {
  return findingsOf(await gate(prRepo(base, head), [g10]), 'G10');
}

const PROJECT = '[project]\nname = "pkg"\nversion = "0.1.0"\n';

interface Example {
  why: string;
  files: Record<string, FileContent>;
  severity: 'fail' | 'risk';
  /** Parts of the message. */
  says: string[];
  /** A second finding, a `risk`, is expected too (a dead key beside the refused one). */
  alsoRisk?: boolean;
}

/** One example per row of TOOL_ROWS (more where the row's verdict depends on the file). */
const EXAMPLES: Record<string, Example[]> = {
  ruff: [
    {
      why: 'a ruff.toml that nests [tool.ruff] (ruff: "unknown field `tool`")',
      files: { 'ruff.toml': '[tool.ruff]\nline-length = 100\n' },
      severity: 'fail',
      says: ['unknown key `tool`', 'ruff stops', 'settings at the top level'],
    },
    {
      why: 'a misspelt key in [tool.ruff]',
      files: { 'pyproject.toml': `${PROJECT}\n[tool.ruff]\nline-lenght = 100\n` },
      severity: 'fail',
      says: ['`tool.ruff.line-lenght`', 'Did you mean `line-length`?'],
    },
  ],
  mypy: [
    {
      why: 'an invented [tool.mypy] option (mypy: "Unrecognized option", exit 0)',
      files: { 'pyproject.toml': `${PROJECT}\n[tool.mypy]\nstrict = true\ncheck_untyped_calls = true\n` },
      severity: 'risk',
      says: ['`tool.mypy.check_untyped_calls`', 'mypy prints "Unrecognized option" and ignores it', 'Did you mean `check_untyped_defs`?'],
    },
    {
      why: 'a path option that is not a string crashes mypy',
      files: { 'pyproject.toml': `${PROJECT}\n[tool.mypy]\ncache_dir = 5\n` },
      severity: 'fail',
      says: ['`tool.mypy.cache_dir`'],
    },
    {
      why: 'a flag that is not a boolean is only warned about',
      files: { 'pyproject.toml': `${PROJECT}\n[tool.mypy]\nwarn_unused_ignores = 3\n` },
      severity: 'risk',
      says: ['`tool.mypy.warn_unused_ignores`', 'so the setting does nothing'],
    },
  ],
  black: [
    {
      why: '`exclude` written as a list (black: "Config key exclude must be a string", exit 2)',
      files: { 'pyproject.toml': `${PROJECT}\n[tool.black]\nexclude = ["build", "dist"]\n` },
      severity: 'fail',
      says: ['`tool.black.exclude`', 'black stops'],
    },
    {
      why: 'an unknown [tool.black] key (black: "Invalid config keys detected", exit 0)',
      files: { 'pyproject.toml': `${PROJECT}\n[tool.black]\nline-lenght = 100\n` },
      severity: 'risk',
      says: ['Did you mean `line-length`?'],
    },
  ],
  coverage: [
    {
      why: 'an unknown option in [tool.coverage.run] (coverage warns)',
      files: { 'pyproject.toml': `${PROJECT}\n[tool.coverage.run]\nbranchh = true\n` },
      severity: 'risk',
      says: ['`tool.coverage.run.branchh`', 'Did you mean `branch`?'],
    },
    {
      why: 'a value coverage cannot convert (exit 1)',
      files: { 'pyproject.toml': `${PROJECT}\n[tool.coverage.report]\nfail_under = "high"\n` },
      severity: 'fail',
      says: ['`tool.coverage.report.fail_under`', 'coverage stops'],
    },
  ],
  pytest: [
    {
      why: 'a wrong type in the native [tool.pytest] table (pytest 9 exits 4)',
      files: { 'pyproject.toml': `${PROJECT}\n[tool.pytest]\nminversion = 6\n` },
      severity: 'fail',
      says: ['`tool.pytest.minversion`', 'pytest stops'],
    },
    {
      why: 'an ini option pytest only warns about (testpaths that is not a list)',
      files: { 'pyproject.toml': `${PROJECT}\n[tool.pytest.ini_options]\ntestpaths = 5\n` },
      severity: 'risk',
      says: ['`tool.pytest.ini_options.testpaths`', 'so the setting does nothing'],
    },
  ],
  'uv-file': [
    {
      why: 'an unknown key in uv.toml (uv: "Failed to parse", exit 2)',
      files: { 'uv.toml': 'index-urll = "https://example.com/simple"\n' },
      severity: 'fail',
      says: ['`index-urll`', 'uv stops'],
    },
  ],
  'uv-pyproject': [
    {
      why: 'an unknown key in [tool.uv] (uv warns and ignores the table)',
      files: { 'pyproject.toml': `${PROJECT}\n[tool.uv]\nindex-urll = "https://example.com/simple"\n` },
      severity: 'risk',
      says: ['`tool.uv.index-urll`', 'ignores all of [tool.uv]'],
    },
  ],
  'pyproject-project': [
    {
      why: 'PEP 621 dependencies written as a table (every backend: "must be array")',
      files: { 'pyproject.toml': `${PROJECT}\n[project.dependencies]\nrequests = ">=2"\n` },
      severity: 'fail',
      says: ['`project.dependencies`'],
    },
    {
      why: 'an unknown [project] key with setuptools (validate-pyproject refuses it)',
      files: { 'pyproject.toml': `${PROJECT}summary = "x"\n` },
      severity: 'fail',
      says: ['`project.summary`'],
    },
    {
      why: 'the same key with hatchling, which builds anyway',
      files: {
        'pyproject.toml': `[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n${PROJECT}summary = "x"\n`,
      },
      severity: 'risk',
      says: ['`project.summary`', 'never read (hatchling, the build backend here, builds without reading it)'],
    },
    {
      why: 'metadata moved out of [project] so that it lacks its name (every backend stops)',
      files: { 'pyproject.toml': 'name = "pkg"\n\n[project]\nversion = "0.1.0"\n' },
      severity: 'fail',
      says: ['`project.name`', 'missing'],
      alsoRisk: true,
    },
  ],
  'pyproject-build-system': [
    {
      why: 'an unknown key in [build-system] (pip and the backends ignore it)',
      files: {
        'pyproject.toml': `[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\nname = "pkg"\n\n${PROJECT}`,
      },
      severity: 'risk',
      says: ['`build-system.name`', 'never read'],
    },
  ],
  'pyproject-top-level': [
    {
      why: 'a top-level [coverage] table no tool reads',
      files: { 'pyproject.toml': `${PROJECT}\n[coverage.run]\nbranch = true\n` },
      severity: 'risk',
      says: ['`coverage`, which is never read (tools read only `[project]`', 'Did you mean `[tool.coverage]`?'],
    },
    {
      why: 'a top-level [mypy] table',
      files: { 'pyproject.toml': `${PROJECT}\n[mypy]\nstrict = true\n` },
      severity: 'risk',
      says: ['Did you mean `[tool.mypy]`?'],
    },
    {
      why: 'project metadata left outside [project] while [project] still has its name',
      files: { 'pyproject.toml': `description = "A package"\n\n${PROJECT}` },
      severity: 'risk',
      says: ['Did you mean `project.description`?'],
    },
  ],
  'tsconfig-options': [
    {
      why: 'an unknown compiler option (TS5023)',
      files: { 'tsconfig.json': '{\n  "compilerOptions": {\n    "strictt": true\n  }\n}\n' },
      severity: 'fail',
      says: ['`compilerOptions.strictt`', 'tsc stops', 'Did you mean `strict`?'],
    },
  ],
  'tsconfig-top-level': [
    {
      why: 'an unknown top-level key (tsc ignores it)',
      files: { 'tsconfig.json': '{\n  "compilerOptions": { "strict": true },\n  "includes": ["src"]\n}\n' },
      severity: 'risk',
      says: ['`includes`', 'tsc ignores it', 'Did you mean `include`?'],
    },
  ],
  eslintrc: [
    {
      why: 'an unknown top-level key in .eslintrc.json',
      files: { '.eslintrc.json': '{\n  "rulez": {}\n}\n' },
      severity: 'fail',
      says: ['`rulez`', 'ESLint stops', 'Did you mean `rules`?'],
    },
  ],
  'eslint-flat': [
    {
      why: 'an unknown key in a flat config object, inside defineConfig',
      files: {
        'eslint.config.mjs':
          'import { defineConfig } from "eslint/config";\nimport js from "@eslint/js";\n\nexport default defineConfig([\n  js.configs.recommended,\n  { files: ["**/*.js"], extends: [], rulez: { semi: "error" } },\n]);\n',
      },
      severity: 'fail',
      says: ['unknown key `rulez`', 'Did you mean `rules`?'],
    },
    {
      why: '`files` written as a string, in an array named by a const',
      files: { 'eslint.config.js': 'const config = [{ files: "**/*.js", rules: {} }];\nmodule.exports = config;\n' },
      severity: 'fail',
      says: ['`files` is a string'],
    },
  ],
  prettier: [
    {
      why: 'an unknown option (Prettier: "Ignored unknown option")',
      files: { '.prettierrc': '{ "semi": false, "singleQuotes": true }\n' },
      severity: 'risk',
      says: ['`singleQuotes`', 'Did you mean `singleQuote`?'],
    },
    {
      why: 'a value Prettier cannot use ("Invalid tabWidth value")',
      files: { '.prettierrc': '{ "tabWidth": "two" }\n' },
      severity: 'fail',
      says: ['`tabWidth`', 'Prettier stops'],
    },
  ],
  cargo: [
    {
      why: 'an unknown [package] key (cargo: "unused manifest key")',
      files: { 'Cargo.toml': '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\nautor = "me"\n' },
      severity: 'risk',
      says: ['`package.autor`', 'unused manifest key'],
    },
    {
      why: 'an edition written as an integer (cargo: "invalid type")',
      files: { 'Cargo.toml': '[package]\nname = "app"\nversion = "0.1.0"\nedition = 2021\n' },
      severity: 'fail',
      says: ['`package.edition`', 'cargo stops'],
    },
  ],
  'pre-commit': [
    {
      why: 'an unknown top-level key (pre-commit warns)',
      files: { '.pre-commit-config.yaml': 'repos: []\nfail_fastt: true\n' },
      severity: 'risk',
      says: ['`fail_fastt`', 'Did you mean `fail_fast`?'],
    },
  ],
  mkdocs: [
    {
      why: 'an unknown key (MkDocs warns)',
      files: { 'mkdocs.yml': 'site_name: Docs\nsite_ur: https://example.com\n' },
      severity: 'risk',
      says: ['`site_ur`', 'Did you mean `site_url`?'],
    },
    {
      why: 'the same under strict: true (MkDocs aborts)',
      files: { 'mkdocs.yml': 'site_name: Docs\nstrict: true\nsite_ur: https://example.com\n' },
      severity: 'fail',
      says: ['`site_ur`'],
    },
  ],
  'github-actions': [
    {
      why: 'an unknown key in a workflow job (GitHub refuses the file)',
      files: { '.github/workflows/ci.yml': 'on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    step:\n      - run: echo\n' },
      severity: 'fail',
      says: ['GitHub refuses the file'],
    },
  ],
  slopgate: [
    {
      why: 'an unknown key in the slopgate config',
      files: { '.github/slopgate.yml': 'strictt: true\n' },
      severity: 'fail',
      says: ['`strictt`', 'Did you mean `strict`?'],
    },
  ],
};

describe('G10 judges a config problem by what its tool does (one table, a test per row)', () => {
  it('every row of the table has an example here, and every example names a row', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual(TOOL_ROWS.map((r) => r.id).sort());
    for (const row of TOOL_ROWS) expect(row.source.length).toBeGreaterThan(10);
  });

  for (const row of TOOL_ROWS) {
    describe(`${row.id}: ${row.tool}`, () => {
      for (const ex of EXAMPLES[row.id] ?? []) {
        it(`${ex.why} → ${ex.severity}`, async () => {
          const found = await g10Of(ex.files);
          expect(found.map((f) => f.severity)).toEqual(ex.alsoRisk ? [ex.severity, 'risk'] : [ex.severity]);
          for (const part of ex.says) expect(found[0]!.message).toContain(part);
          if (row.id !== 'eslint-flat') expect(found[0]!.evidence).toMatchObject({ tool: row.id });
        });
      }
    });
  }

  it('the same invented options already present at the base are not the PR’s doing', async () => {
    const base = { 'pyproject.toml': `${PROJECT}\n[tool.mypy]\nextend_parents = 1\n\n[coverage.run]\nbranch = true\n` };
    const head = { 'pyproject.toml': `${PROJECT}\n[tool.mypy]\nextend_parents = 1\nstrict = true\n\n[coverage.run]\nbranch = true\n` };
    expect(await g10Of(head, base)).toEqual([]);
  });

  it('a file with a refused key and a dead one gets one fail and one risk, and the decision blocks', async () => {
    const report = await gate(
      prRepo({ 'README.md': 'x\n' }, { 'pyproject.toml': `${PROJECT}\n[tool.ruff]\nline-lenght = 100\n\n[tool.mypy]\noptions = 1\n` }),
      [g10],
    );
    const found = findingsOf(report, 'G10');
    expect(found.map((f) => [f.severity, f.evidence?.tool])).toEqual([
      ['fail', 'ruff'],
      ['risk', 'mypy'],
    ]);
    expect(report.decision.blocking).toBe(1);
  });

  it('a dead mypy option alone does not block: the decision is ADVISE', async () => {
    const report = await gate(prRepo({ 'README.md': 'x\n' }, { 'pyproject.toml': `${PROJECT}\n[tool.mypy]\noptions = ["x"]\n` }), [g10]);
    expect(report.decision.outcome).toBe('ADVISE');
  });

  it('an option slopgate’s TypeScript does not know is only a risk when the repository declares a newer TypeScript', async () => {
    const tsconfig = '{\n  "compilerOptions": {\n    "strict": true,\n    "erasableSyntaxOnlyy": true\n  }\n}\n';
    const older = await g10Of({ 'tsconfig.json': tsconfig, 'package.json': '{"devDependencies":{"typescript":"^5.4.0"}}\n' });
    expect(older.map((f) => f.severity)).toEqual(['fail']);
    const newer = await g10Of({ 'tsconfig.json': tsconfig, 'package.json': '{"devDependencies":{"typescript":"^99.1.0"}}\n' });
    expect(newer.map((f) => f.severity)).toEqual(['risk']);
    expect(newer[0]!.message).toContain('typescript ^99.1.0');
  });

  it('keys other tools keep in tsconfig (vueCompilerOptions, ts-node) are not tsc’s business', async () => {
    const tsconfig = '{ "compilerOptions": { "strict": true }, "vueCompilerOptions": {}, "ts-node": { "esm": true } }\n';
    expect(await g10Of({ 'tsconfig.json': tsconfig })).toEqual([]);
  });

  it('offers the rename as a suggestion on the key’s line', async () => {
    const [f] = await g10Of({ 'pyproject.toml': `${PROJECT}\n[tool.mypy]\ncheck_untyped_calls = true\n` });
    expect(f!.suggestion).toEqual({ path: 'pyproject.toml', startLine: 6, endLine: 6, replacement: 'check_untyped_defs = true' });
  });

  it('an ESLint flat config with spreads, computed keys, plugins and languageOptions of its own passes', async () => {
    const cfg = `import tseslint from 'typescript-eslint';
const shared = { rules: {} };
export default tseslint.config(
  ...tseslint.configs.recommended,
  shared,
  { ...shared, ['settings']: {}, languageOptions: { parserOptions: { project: true } }, plugins: {}, linterOptions: { reportUnusedDisableDirectives: 'error' } },
  { ignores: ['dist/'] },
);
`;
    expect(await g10Of({ 'eslint.config.ts': cfg })).toEqual([]);
  });
});
