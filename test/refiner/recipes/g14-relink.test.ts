import { describe, expect, it } from 'vitest';
import { g14 } from '../../../src/guards/g14-dead-links/index.js';
import { g14Relink as recipe } from '../../../src/refiner/recipes/g14-relink.js';
import { similarPaths } from '../../../src/repo/similar-paths.js';
import { applyAndRerun, contextOf, fixOne, reproduce } from './harness.js';

const BASE = {
  'README.md': '# Project\n\nIntro.\n',
  'docs/guide.md': '# Guide\n\n## Install\n\nText.\n',
  'docs/a/setup.md': '# Setup A\n',
  'docs/b/setup.md': '# Setup B\n',
  'docs/usage.rst': 'Usage\n=====\n',
};

describe('recipe g14-relink', () => {
  it('points a link to docs/Guide.md at docs/guide.md, keeping its #fragment', async () => {
    const readme = '# Project\n\nIntro. Read [the guide](docs/Guide.md#install) first.\n';
    const c = await reproduce(g14, BASE, { 'README.md': readme });
    expect(c.findings).toHaveLength(1);
    expect(c.findings[0]!.evidence).toMatchObject({ target: 'docs/Guide.md#install', candidates: ['docs/guide.md'] });
    const { fix } = await fixOne(c, recipe);
    expect(fix.files).toEqual([{ path: 'README.md', content: '# Project\n\nIntro. Read [the guide](docs/guide.md#install) first.\n' }]);
    const replacement = 'Intro. Read [the guide](docs/guide.md#install) first.';
    expect(fix.suggestion).toEqual({ path: 'README.md', startLine: 3, endLine: 3, replacement });
    expect(await applyAndRerun(c, g14, fix)).toEqual([]);
  });

  it('writes the found file relative to the doc that links to it (a wrong extension, from docs/)', async () => {
    const doc = '# Guide\n\n## Install\n\nText. See [usage](./usage.md).\n';
    const c = await reproduce(g14, BASE, { 'docs/guide.md': doc });
    const { fix } = await fixOne(c, recipe);
    expect(fix.files[0]!.content).toBe('# Guide\n\n## Install\n\nText. See [usage](./usage.rst).\n');
    expect(await applyAndRerun(c, g14, fix)).toEqual([]);
  });

  it('uses the path G14 computed for a link written from the repository root', async () => {
    const doc = '# Guide\n\n## Install\n\nText. Back to the [readme](README.md).\n';
    const c = await reproduce(g14, BASE, { 'docs/guide.md': doc });
    expect(c.findings[0]!.evidence).toMatchObject({ fix: '../README.md' });
    const { fix } = await fixOne(c, recipe);
    expect(fix.files[0]!.content).toContain('[readme](../README.md)');
    expect(await applyAndRerun(c, g14, fix)).toEqual([]);
  });

  it('does not guess between two files of the same name', async () => {
    const readme = '# Project\n\nIntro. See [setup](docs/setup.md).\n';
    const c = await reproduce(g14, BASE, { 'README.md': readme });
    expect(c.findings).toHaveLength(1);
    expect(c.findings[0]!.evidence?.candidates).toEqual(['docs/a/setup.md', 'docs/b/setup.md']);
    expect(recipe.handles(c.findings[0]!)).toBe(false);
    expect(await recipe.fix(c.findings[0]!, contextOf(c.repo))).toBeNull();
  });

  it('returns null when the link is no longer in the current content', async () => {
    const readme = '# Project\n\nIntro. Read [the guide](docs/Guide.md) first.\n';
    const c = await reproduce(g14, BASE, { 'README.md': readme });
    expect(await recipe.fix(c.findings[0]!, contextOf(c.repo, { 'README.md': '# Project\n\nIntro.\n' }))).toBeNull();
  });
});

describe('similarPaths', () => {
  const files = ['docs/guide.md', 'docs/Guide.rst', 'docs/api/index.md', 'src/index.md'];
  it('prefers a case slip, then an extension slip, then the same name elsewhere', () => {
    expect(similarPaths(files, 'docs/GUIDE.md')).toEqual(['docs/guide.md']);
    expect(similarPaths(files, 'docs/guide')).toEqual(['docs/Guide.rst', 'docs/guide.md']);
    expect(similarPaths(files, 'docs/index.md')).toEqual(['docs/api/index.md', 'src/index.md']);
    expect(similarPaths(files, 'nothing/here.md')).toEqual([]);
  });
});
