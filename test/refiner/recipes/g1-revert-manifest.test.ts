import { describe, expect, it } from 'vitest';
import { g1 } from '../../../src/guards/g1-manifest-safety/index.js';
import { g1RevertManifest as recipe } from '../../../src/refiner/recipes/g1-revert-manifest.js';
import { applyAndRerun, contextOf, fixOne, reproduce } from './harness.js';

const pkg = (deps: Record<string, string>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'app', version: '1.0.0', ...extra, dependencies: deps }, null, 2) + '\n';

const BASE = { 'package.json': pkg({ react: '^18.2.0', zod: '^3.22.0' }), 'src/app.ts': 'export const x = 1;\n' };

describe('recipe g1-revert-manifest', () => {
  it('puts back a package.json the PR bumped and pruned on the side of a code change', async () => {
    const c = await reproduce(g1, BASE, { 'package.json': pkg({ react: '^18.3.1' }), 'src/app.ts': 'export const x = 2;\n' });
    expect(c.findings).toHaveLength(1);
    expect(c.findings[0]!.evidence).toMatchObject({ status: 'modified', collateral: true });
    const { fix } = await fixOne(c, recipe);
    expect(fix.files).toEqual([{ path: 'package.json', content: BASE['package.json'] }]);
    expect(fix.restoresBase).toBe(true);
    expect(fix.suggestion).toBeDefined();
    expect(await applyAndRerun(c, g1, fix)).toEqual([]);
  });

  it('leaves an edit that adds a dependency alone (the new code may need it)', async () => {
    const c = await reproduce(g1, BASE, { 'package.json': pkg({ react: '^18.2.0', zod: '^3.22.0', 'left-pad': '^1.3.0' }) });
    expect(c.findings).toHaveLength(1);
    expect(c.findings[0]!.evidence).toMatchObject({ status: 'modified', collateral: false });
    expect(recipe.handles(c.findings[0]!)).toBe(false);
  });

  it('never reverts a manifest the PR adds', async () => {
    const c = await reproduce(g1, BASE, { 'tools/package.json': pkg({}) });
    const finding = c.findings.find((f) => f.path === 'tools/package.json')!;
    expect(finding.evidence).toMatchObject({ status: 'added', collateral: false });
    expect(recipe.handles(finding)).toBe(false);
    // even if asked directly, there is no base to go back to
    expect(await recipe.fix(finding, contextOf(c.repo))).toBeNull();
  });

  it('returns null when the manifest is already back to its base content', async () => {
    const c = await reproduce(g1, BASE, { 'package.json': pkg({ react: '^18.3.1' }) });
    expect(await recipe.fix(c.findings[0]!, contextOf(c.repo, { 'package.json': BASE['package.json'] }))).toBeNull();
  });
});
