import { describe, expect, it } from 'vitest';
import { Revision } from '../../src/core/revision.js';
import { detectRunner } from '../../src/testgate/runners/detect.js';
import { TestRepo, type FileContent } from '../helpers/git-repo.js';

/**
 * The command a finding asks a person to run is the project's own: the CI line the runner took its
 * arguments from, else the plain command. slopgate's wrapper (report files, import path, reporters)
 * stays in `command` for the sandbox and the cache key.
 */
async function detect(files: Record<string, FileContent>, configured?: string) {
  const repo = TestRepo.create();
  const sha = repo.write(files).commit('base');
  const d = await detectRunner(new Revision(repo.dir, sha), configured);
  if ('skipped' in d) throw new Error(d.skipped);
  return d.runner;
}

const workflow = (run: string) =>
  `on: [pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: ${run}\n`;
const PY = { 'pyproject.toml': '[project]\nname = "app"\n', 'app/__init__.py': '', 'tests/test_a.py': 'def test_a():\n    pass\n' };
const pkg = (scripts: Record<string, string>, devDependencies: Record<string, string> = {}) =>
  JSON.stringify({ name: 'x', scripts, devDependencies });

describe('Runner.displayCommand', () => {
  it('pytest: plain `pytest`, or the CI line it took its arguments from (tox posargs filled in)', async () => {
    const plain = await detect(PY);
    expect(plain.displayCommand).toBe('pytest');
    expect(plain.command).toContain('-p _slopgate_origins');
    const ci = await detect({ ...PY, '.github/workflows/ci.yml': workflow('python -m pytest -q tests') });
    expect(ci.displayCommand).toBe('python -m pytest -q tests');
    expect(ci.command).toContain('python3 -m pytest');
    const tox = await detect({ ...PY, 'tox.ini': '[testenv]\ncommands = pytest {posargs:tests}\n' });
    expect(tox.displayCommand).toBe('pytest tests');
  });

  it('go and cargo: `go test ./...` and `cargo test`, or the CI line as written', async () => {
    const GO = { 'go.mod': 'module example.com/m\n\ngo 1.21\n', 'm.go': 'package m\n' };
    expect((await detect(GO)).displayCommand).toBe('go test ./...');
    expect((await detect({ ...GO, '.github/workflows/go.yml': workflow('go test -race -short ./...') })).displayCommand).toBe(
      'go test -race -short ./...',
    );
    const RS = { 'Cargo.toml': '[package]\nname = "r"\nversion = "0.1.0"\n', 'src/lib.rs': '' };
    expect((await detect(RS)).displayCommand).toBe('cargo test');
    expect((await detect({ ...RS, '.github/workflows/rust.yml': workflow('cargo test --workspace --locked') })).displayCommand).toBe(
      'cargo test --workspace --locked',
    );
  });

  it('node: npx vitest run, npx jest, node --test with its arguments, npm test; the CI’s own npx line wins', async () => {
    expect((await detect({ 'package.json': pkg({ test: 'vitest' }, { vitest: '^2' }) })).displayCommand).toBe('npx vitest run');
    expect(
      (await detect({ 'package.json': pkg({}, { vitest: '^2' }), '.github/workflows/ci.yml': workflow('npx vitest run --project unit') }))
        .displayCommand,
    ).toBe('npx vitest run --project unit');
    expect((await detect({ 'package.json': pkg({ test: 'jest --ci' }, { jest: '^29' }) })).displayCommand).toBe('npx jest');
    const nodeTest = await detect({ 'package.json': pkg({ test: 'node --test test/' }) });
    expect(nodeTest.displayCommand).toBe('node --test test/');
    expect(nodeTest.command).toContain('--test-reporter=');
    const npm = await detect({ 'package.json': pkg({ test: 'mocha' }) });
    expect([npm.displayCommand, npm.command]).toEqual(['npm test', 'npm test --silent']);
  });

  it('a configured tests.command is shown as configured', async () => {
    expect((await detect(PY, 'make check')).displayCommand).toBe('make check');
  });
});
