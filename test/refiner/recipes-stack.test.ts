import { afterAll, describe, expect, it } from 'vitest';
import { RECIPES } from '../../src/refiner/recipes/index.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';
import { gateAndRefine } from './fixtures.js';

afterAll(() => removeTestRepos());

const OPS = `def add(a, b):
    return a + b


def sub(a, b):
    return a - b
`;

/** The PR of issue 22: a stray import on top of the file, and `sub` dropped behind a placeholder comment. */
const SLOPPY = `import requests


def add(a, b):
    return a + b


# sub remains unchanged
`;

describe('refine: kept recipe fixes stack on the same file', () => {
  it('g4-remove-import is kept, then g7-restore-definitions is built on it (not refused by a stale fence)', async () => {
    const repo = prRepo(
      {
        'requirements.txt': 'attrs>=23\n',
        'calc/__init__.py': '',
        'calc/ops.py': OPS,
        'calc/main.py': 'from calc.ops import add, sub\n\nprint(add(1, sub(3, 2)))\n',
      },
      { 'calc/ops.py': SLOPPY },
    );
    const { report, result } = await gateAndRefine(repo, { recipes: RECIPES });
    expect(report.findings.filter((f) => f.severity === 'fail').map((f) => [f.guard, f.path])).toEqual(
      expect.arrayContaining([
        ['G4', 'calc/ops.py'],
        ['G7', 'calc/ops.py'],
      ]),
    );
    const bySource = result.attempts.map((a) => [a.source, a.outcome, a.reason ?? '']);
    expect(bySource).toEqual([
      ['g4-remove-import', 'kept', ''],
      ['g7-restore-definitions', 'kept', ''],
    ]);
    // The second candidate was built on the first: both fixes are in the one proposed file.
    const ops = result.files.find((f) => f.path === 'calc/ops.py')?.content ?? '';
    expect(ops).not.toContain('import requests');
    expect(ops).toContain('def sub(a, b):\n    return a - b\n');
    expect(ops).not.toContain('remains unchanged');
    expect(result.blockingAfter).toBe(0);
  }, 120_000);
});
