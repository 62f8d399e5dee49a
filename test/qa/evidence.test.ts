import { describe, expect, it } from 'vitest';
import { loadPatchSet } from '../../src/core/patch-set.js';
import { citationProblem } from '../../src/qa/evidence.js';
import { portRepo } from './fixtures.js';

describe('qa/evidence: a citation must point into the lines the PR adds', async () => {
  const repo = portRepo({ 'docs/old.md': '' });
  repo.git('rm', '-q', 'README.md');
  repo.commit('drop readme');
  const patch = await loadPatchSet(repo.dir, 'main', 'pr');

  it('accepts changed lines in the forms models write', () => {
    const forms = ['src/parse.ts:3', './src/parse.ts:2', 'b/src/parse.ts:4:7', '`src/parse.ts:L3`', 'parse.ts:3', 'src/parse.ts:1-2'];
    for (const cite of forms) {
      expect([cite, citationProblem(cite, patch.files)]).toEqual([cite, null]);
    }
  });

  it('says why the rest do not prove anything', () => {
    expect(citationProblem(null, patch.files)).toBe('handled without a path:line citation');
    expect(citationProblem('see the range check', patch.files)).toMatch(/^unparseable citation/);
    expect(citationProblem('src/parse.ts:1', patch.files)).toBe('src/parse.ts:1 is not a line this PR adds or changes');
    expect(citationProblem('src/parse.ts:5', patch.files)).toBe('src/parse.ts:5 is not a line this PR adds or changes');
    expect(citationProblem('src/other.ts:3', patch.files)).toBe('src/other.ts is not a file this PR changes');
    expect(citationProblem('README.md:1', patch.files)).toMatch(/README.md is deleted by this PR/);
    expect(citationProblem('src/parse.ts:0', patch.files)).toMatch(/not usable/);
  });
});
