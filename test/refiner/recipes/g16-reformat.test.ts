import { expect, it } from 'vitest';
import { g16 } from '../../../src/guards/g16-project-checks/index.js';
import { g16Reformat as recipe } from '../../../src/refiner/recipes/g16-reformat.js';
import { needs } from '../../helpers/toolchains.js';
import { applyAndRerun, contextOf, fixOne, reproduce } from './harness.js';

const isFormat = (f: { category: string }) => f.category === 'lint-violation';
const CI = {
  '.github/workflows/ci.yml':
    'on: push\njobs:\n  fmt:\n    runs-on: ubuntu-latest\n    steps:\n      - run: gofmt -l .\n      - run: cargo fmt --check\n',
};

needs('go')('recipe g16-reformat (gofmt)', () => {
  it('formats the Go file the PR left unformatted; G16 then passes', async () => {
    const base = 'package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n';
    const head = `${base}\nfunc Sub(a, b int) int {  \n    return a - b\n}\n`;
    const c = await reproduce(g16, { ...CI, 'calc/calc.go': base }, { 'calc/calc.go': head });
    expect(c.findings.filter(isFormat)).toHaveLength(1);
    const { fix } = await fixOne(c, recipe, isFormat);
    expect(fix.files).toEqual([{ path: 'calc/calc.go', content: `${base}\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n` }]);
    expect(fix.summary).toBe('formatted calc/calc.go with gofmt');
    expect((await applyAndRerun(c, g16, fix)).filter(isFormat)).toEqual([]);
  });

  it('gives up when the current content no longer parses', async () => {
    const base = 'package calc\n\nvar X = 1\n';
    const c = await reproduce(g16, { ...CI, 'calc/x.go': base }, { 'calc/x.go': `${base}var  Y = 2\n` });
    const finding = c.findings.find(isFormat)!;
    expect(recipe.handles(finding)).toBe(true);
    expect(await recipe.fix(finding, contextOf(c.repo, { 'calc/x.go': 'package calc\nvar (\n' }))).toBeNull();
  });
});

needs('rustfmt')('recipe g16-reformat (rustfmt)', () => {
  it('formats with the edition and the rustfmt.toml G16 judged the file by', async () => {
    const cargo = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n';
    const base = 'pub fn add(a: i32, b: i32) -> i32 {\n\ta + b\n}\n';
    const c = await reproduce(
      g16,
      { ...CI, 'Cargo.toml': cargo, 'rustfmt.toml': 'hard_tabs = true\n', 'src/lib.rs': base },
      { 'src/lib.rs': `${base}\npub fn sub(a:i32,b:i32)->i32{a-b}\n` },
    );
    const { fix } = await fixOne(c, recipe, isFormat);
    expect(fix.files[0]!.content).toBe(`${base}\npub fn sub(a: i32, b: i32) -> i32 {\n\ta - b\n}\n`);
    expect((await applyAndRerun(c, g16, fix)).filter(isFormat)).toEqual([]);
  });
});
