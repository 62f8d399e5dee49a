import { afterAll, describe, expect, it } from 'vitest';
import { loadPatchSet } from '../../src/core/patch-set.js';
import { pyInterfaceMayChange } from '../../src/guards/g17-type-probe/py-interface.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';

/**
 * Whether G17 checks the importers of a changed Python file again: only when the change can alter what
 * they see. Each case is a real commit on a throwaway repository, read through the real patch set.
 */

afterAll(() => removeTestRepos());

const BASE = [
  'import os',
  '',
  'LIMIT = 3',
  '',
  '',
  'class Box:',
  '    size = 1',
  '',
  '    def __init__(self, label: str) -> None:',
  '        self.label = label',
  '',
  '    def grow(self, by: int) -> int:',
  '        total = self.size + by',
  '        return total',
  '',
  '    def guess(self, by):',
  '        return by * 2',
  '',
  '',
  'def helper(x: int) -> int:',
  '    def inner(y):',
  '        return y + 1',
  '    return inner(x)',
  '',
].join('\n');

async function mayChange(head: string, base = BASE, path = 'pkg/box.py', headPath = path): Promise<boolean> {
  const repo = prRepo({ [path]: base }, headPath === path ? { [path]: head } : { [path]: null, [headPath]: head });
  const patch = await loadPatchSet(repo.dir, 'main', 'pr');
  const file = patch.files.find((f) => f.path === headPath);
  if (!file) throw new Error(`${headPath} is not in the change`);
  return pyInterfaceMayChange(file);
}

const edit = (from: string, to: string) => BASE.replace(from, to);

describe('G17: does a Python change reach its importers?', () => {
  it('a body line of a function that declares its return type does not, nor does a nested function in it', async () => {
    expect(await mayChange(edit('        total = self.size + by', '        total = by + self.size'))).toBe(false);
    expect(await mayChange(edit('        return y + 1', '        return y + 2'))).toBe(false);
    expect(await mayChange(edit('        return total', '        # the sum\n        return total'))).toBe(false);
  });

  it('comments and blank lines anywhere do not', async () => {
    expect(await mayChange(edit('LIMIT = 3', '# the limit\nLIMIT = 3\n'))).toBe(false);
  });

  it('a signature, a module-level name, an import, a class attribute or a decorator does', async () => {
    expect(await mayChange(edit('def grow(self, by: int) -> int:', 'def grow(self, by: int, step: int) -> int:'))).toBe(true);
    expect(await mayChange(edit('def grow(self, by: int) -> int:', 'def grow(self, by: int) -> str:'))).toBe(true);
    expect(await mayChange(edit('LIMIT = 3', 'LIMIT = "3"'))).toBe(true);
    expect(await mayChange(edit('import os', 'import os, sys'))).toBe(true);
    expect(await mayChange(edit('    size = 1', '    size = 2'))).toBe(true);
    expect(await mayChange(edit('def helper', '@staticmethod\ndef helper'))).toBe(true);
  });

  it('a deleted line counts like an added one: removing a method does', async () => {
    expect(await mayChange(edit('    def guess(self, by):\n        return by * 2\n', ''))).toBe(true);
  });

  it('the body of a function whose return type pyright infers does', async () => {
    expect(await mayChange(edit('        return by * 2', '        return str(by)'))).toBe(true);
  });

  it('the body of a function that sets a module name through `global` does', async () => {
    const withGlobal = edit('        total = self.size + by', '        global LIMIT\n        LIMIT = by\n        total = self.size + by');
    expect(await mayChange(withGlobal.replace('        LIMIT = by\n', ''), withGlobal)).toBe(true);
  });

  it('an attribute of self set in any method does (pyright reads instance attributes from it)', async () => {
    expect(await mayChange(edit('        self.label = label', '        self.name = label'))).toBe(true);
    expect(
      await mayChange(edit('        total = self.size + by', '        self.total: int = self.size + by\n        total = self.total')),
    ).toBe(true);
  });

  it('an added, renamed or unparsable file does', async () => {
    expect(await mayChange(BASE, BASE, 'pkg/box.py', 'pkg/crate.py')).toBe(true);
    expect(await mayChange(edit('        return total', '        return total +'))).toBe(true);
  });
});
