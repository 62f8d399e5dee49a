import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Report } from '../../src/core/report.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';

/**
 * G4 through the real CLI: an undeclared import in a file that no package ships and nothing the
 * project builds, tests or runs in CI includes (examples/, scripts/) is a risk, not a failure.
 */
const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'src', 'cli.ts');

afterAll(() => removeTestRepos());

it('G4: `import aiosqlite` in examples/app/app.py of a package under src/pkg is a risk; in the package, or in a folder CI runs, a failure', () => {
  const app = 'import aiosqlite\n\n\nasync def main():\n    return await aiosqlite.connect(":memory:")\n';
  const repo = prRepo(
    {
      'pyproject.toml': '[project]\nname = "pkg"\nversion = "0.1.0"\ndependencies = []\n',
      'src/pkg/__init__.py': '',
      Makefile: 'smoke:\n\tpython scripts/smoke.py\n',
      '.github/workflows/ci.yml': 'on: [pull_request]\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make smoke\n',
    },
    { 'examples/app/app.py': app, 'src/pkg/store.py': app, 'scripts/smoke.py': app, 'docs/snippets/db.py': app },
  );
  const r = spawnSync(TSX, [CLI, 'check', '--base', 'main', '--head', 'pr', '--only', 'G4', '--no-tests', '--format', 'json'], {
    cwd: repo.dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const report = JSON.parse(r.stdout) as Report;
  const found = report.findings.filter((f) => f.guard === 'G4' && f.category === 'ungrounded-import');
  expect(found.map((f) => [f.path, f.severity]).sort()).toEqual([
    ['docs/snippets/db.py', 'risk'],
    ['examples/app/app.py', 'risk'],
    ['scripts/smoke.py', 'fail'],
    ['src/pkg/store.py', 'fail'],
  ]);
  const example = found.find((f) => f.path === 'examples/app/app.py')!;
  expect(example.message).toContain("'aiosqlite'");
  expect(example.message).toContain(
    'Nothing the project builds, tests or runs includes this file (examples/app/app.py is under examples/, which no package ships and no workflow, build or test configuration of the repository names)',
  );
});
