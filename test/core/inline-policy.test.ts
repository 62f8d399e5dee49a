import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTE_TABLE } from '../../src/core/categories.js';
import { INLINE_DISMISSIBLE, inlineCategoryRefusal, inlineDismissible, maintainerOnlyCategories } from '../../src/core/inline-policy.js';

const G1 = ['manifest-edit', 'sensitive-path', 'oversize-file'];
const G8 = ['test-regression', 'build-broken', 'tests-removed', 'tests-not-run', 'flaky-test'];

describe('what a slopgate-ignore comment in the PR may dismiss', () => {
  it('docs/guards.md lists exactly INLINE_DISMISSIBLE', () => {
    const readme = readFileSync('docs/guards.md', 'utf8');
    const block = /<!-- inline-dismissible:start -->([\s\S]*?)<!-- inline-dismissible:end -->/.exec(readme)?.[1]?.trim();
    expect(block, 'docs/guards.md has the inline-dismissible block').toBeDefined();
    expect(block).toBe(INLINE_DISMISSIBLE.map((c) => `\`${c}\``).join(', '));
  });

  it('never G1, G8, removed or weakened tests, nor the gate failing', () => {
    for (const c of [...G1, ...G8, 'tests-weakened', 'weak-assertion', 'guard-error', 'critic-error', 'stuck-detected']) {
      expect(inlineDismissible(c), c).toBe(false);
      expect(inlineCategoryRefusal(c), c).toMatch(new RegExp(`^inline dismissal ignored: ${c} findings need a maintainer — `));
    }
    expect(maintainerOnlyCategories()).toEqual(expect.arrayContaining([...G1, ...G8, 'tests-weakened']));
    expect(inlineCategoryRefusal('sensitive-path')).toContain('maintainer-only paths');
  });

  it('tests-weakened is a raised category now, routed to the author like tests-removed', () => {
    expect(ROUTE_TABLE['tests-weakened']).toBe('ask-author');
    expect(inlineCategoryRefusal('tests-weakened')).toBe(
      'inline dismissal ignored: tests-weakened findings need a maintainer — weakening tests is a maintainer decision',
    );
  });

  it('nothing can break by the list: no category that fails a build, a test or a tool is on it', () => {
    const breaking = [
      'syntax-invalid',
      'schema-invalid',
      'ungrounded-import',
      'ungrounded-package',
      'toplevel-dropped',
      'signature-change',
    ];
    for (const c of breaking) expect(inlineDismissible(c), c).toBe(false);
    // Every entry is a real category, none of the maintainer-only ones, none routed to a maintainer or to stuck.
    for (const c of INLINE_DISMISSIBLE) {
      expect(Object.keys(ROUTE_TABLE)).toContain(c);
      expect(maintainerOnlyCategories()).not.toContain(c);
      expect(ROUTE_TABLE[c]).toBe('refine');
    }
  });

  it('an unknown or future category is refused, with the general reason', () => {
    expect(inlineDismissible('brand-new-category')).toBe(false);
    expect(inlineCategoryRefusal('brand-new-category')).toMatch(/can break a build, a test or a tool/);
    expect(inlineCategoryRefusal('dead-link')).toBeUndefined();
  });
});
