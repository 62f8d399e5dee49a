import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { exactGlob, grantFor } from '../../src/host/sanctions.js';

describe('sanctioned paths are exact', () => {
  it('a path with glob characters matches itself and nothing else', () => {
    const paths = [
      'a[1].json',
      'b*.toml',
      '{x,y}.yml',
      '!neg.txt',
      '@scope/package.json',
      'c(1).json',
      'd?.txt',
      'e+f.txt',
      'back\\slash.txt',
    ];
    const others = ['a1.json', 'bb.toml', 'x.yml', 'neg.txt', 'scope/package.json', 'c1.json', 'dd.txt', 'eef.txt', 'back/slash.txt'];
    for (const p of paths) {
      const m = picomatch(exactGlob(p), { dot: true });
      expect(m(p), p).toBe(true);
      for (const o of [...others, ...paths.filter((q) => q !== p)]) expect(m(o), `${p} vs ${o}`).toBe(false);
    }
  });

  it('a grant records each matching changed file with its blob (a removed file as deleted; a renamed one by its old name too)', () => {
    const grant = grantFor('allow', 'maint', 'a'.repeat(40), 'deps/*.txt', [
      { path: 'deps/a.txt', status: 'modified', blob: '1'.repeat(40) },
      { path: 'deps/b.txt', status: 'removed', blob: '2'.repeat(40) },
      { path: 'other/c.txt', previousPath: 'deps/c.txt', status: 'renamed', blob: '3'.repeat(40) },
      { path: 'src/d.txt', status: 'modified', blob: '4'.repeat(40) },
      { path: 'deps/sub.txt', status: 'modified', blob: null }, // a submodule: no content to bind to
    ]);
    expect(grant.files).toEqual([
      { path: 'deps/a.txt', blob: '1'.repeat(40) },
      { path: 'deps/b.txt', blob: null },
      { path: 'other/c.txt', blob: '3'.repeat(40) },
    ]);
  });
});
