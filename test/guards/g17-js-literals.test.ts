import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli.js';
import type { Report } from '../../src/core/report.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

/** G17 findings for base → head, through the real CLI (`slopgate check --only G17 --format json`). */
async function probe(base: Record<string, FileContent>, head: Record<string, FileContent>) {
  const repo = prRepo(base, head);
  let out = '';
  await runCheck({ repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, only: ['G17'] }, (s) => (out += s));
  return (JSON.parse(out) as Report).findings.filter((f) => f.guard === 'G17');
}

const brief = (found: { path?: string; line?: number; severity: string; evidence?: Record<string, unknown> }[]) =>
  found.map((f) => [f.path, f.line, f.severity, f.evidence?.compilerCode]);

const DEEP_MERGE = 'export function deepMerge(a, b) {\n  return { ...a, ...b };\n}\n';
const CONFIG = "import { merger } from './merger.js';\n\nexport function load(d, u) {\n  return merger.merge(d, u);\n}\n";
const BASE = {
  'src/deep-merge.js': DEEP_MERGE,
  'src/merger.js': "import { deepMerge } from './deep-merge.js';\n\nexport const merger = { merge: deepMerge };\n",
  'src/config.js': CONFIG,
};
const merger = (literal: string, more = '') => `import { deepMerge } from './deep-merge.js';\n\nexport const merger = ${literal};\n${more}`;

describe('G17 on JavaScript object literals', () => {
  it('a JS object literal that loses the key its unchanged callers read: the changed declaration is flagged', async () => {
    const found = await probe(BASE, { 'src/merger.js': merger('{ combine: deepMerge }') });
    expect(brief(found)).toEqual([['src/merger.js', 3, 'risk', 'js-object-literal']]);
    expect(found[0]!.category).toBe('invented-api');
    expect(found[0]!.message).toContain('breaks src/config.js:4');
    expect(found[0]!.message).toContain('`merger.merge` reads a key the object does not have');
    expect(found[0]!.evidence?.errorAt).toBe('src/config.js:4');
  });

  it('an object that is extended later, in its own file or in another, gives nothing', async () => {
    expect(await probe(BASE, { 'src/merger.js': merger('{ combine: deepMerge }', 'merger.merge = deepMerge;\n') })).toEqual([]);
    expect(
      await probe(BASE, {
        'src/merger.js': merger('{ combine: deepMerge }'),
        'src/extend.js':
          "import { merger } from './merger.js';\nimport { deepMerge } from './deep-merge.js';\n\nObject.assign(merger, { merge: deepMerge });\n",
        'src/config.js': "import './extend.js';\n" + CONFIG,
      }),
    ).toEqual([]);
  });

  it('a literal with a spread, a getter or a method using this gives nothing', async () => {
    const base = { ...BASE, 'src/defaults.js': 'export const defaults = { merge: (a, b) => ({ ...a, ...b }) };\n' };
    const head = (literal: string) => ({
      'src/merger.js': `import { deepMerge } from './deep-merge.js';\nimport { defaults } from './defaults.js';\n\nexport const merger = ${literal};\n`,
    });
    expect(await probe(base, head('{ ...defaults, combine: deepMerge }'))).toEqual([]);
    expect(await probe(base, head('{ combine: deepMerge, get size() { return 1; } }'))).toEqual([]);
    expect(await probe(base, head('{ combine: deepMerge, init() { this.merge = deepMerge; } }'))).toEqual([]);
  });

  it('a read that was already there at the base is not new', async () => {
    const base = { ...BASE, 'src/merger.js': merger('{ combine: deepMerge }') };
    const found = await probe(base, {
      'src/config.js': CONFIG.replace('merger.merge(d, u);', 'merger.merge(d, u); // the same read, on a line the PR rewrote'),
    });
    expect(found).toEqual([]);
  });

  it('members every object has (toString, hasOwnProperty) and reads that ask whether the key is there give nothing', async () => {
    const found = await probe(BASE, {
      'src/config.js':
        CONFIG +
        "export const s = merger.toString();\nexport const h = merger.hasOwnProperty('merge');\nexport const o = merger.combine?.();\nexport const t = typeof merger.combine;\n" +
        'export const f = merger.combine ?? merger.merge;\nif (merger.combine) merger.combine();\nexport const n = !merger.combine;\n',
    });
    expect(found).toEqual([]);
  });

  it('a literal passed on, destructured or exported through CommonJS gives nothing', async () => {
    const head = (use: string) => ({
      'src/config.js': `const local = { merge: (a) => a };\n${use}\nexport const r = local.combine(1);\n`,
    });
    expect(await probe(BASE, head('register(local);'))).toEqual([]);
    expect(await probe(BASE, head('const { merge } = local;'))).toEqual([]);
    expect(await probe(BASE, head('module.exports.local = local;'))).toEqual([]);
    expect(await probe(BASE, head('local[key()] = 1;'))).toEqual([]);
  });

  it('a call of a missing key on a literal of the same file that never leaves it fails; a plain read stays a risk', async () => {
    const found = await probe(BASE, {
      'src/config.js': CONFIG + 'const local = { merge: (a) => a };\nexport const r = local.combine(1);\nexport const v = local.verbose;\n',
    });
    expect(brief(found)).toEqual([
      ['src/config.js', 7, 'fail', 'js-object-literal'],
      ['src/config.js', 8, 'risk', 'js-object-literal'],
    ]);
    expect(found[0]!.evidence?.certain).toBe(true);
    expect(found[0]!.remediation).toContain('add `combine` to the object literal at src/config.js:6');
  });

  it('an exported literal read in its own file stays a risk (another module may extend it)', async () => {
    const found = await probe(BASE, { 'src/merger.js': merger('{ merge: deepMerge }', 'export const r = merger.combine(1, 2);\n') });
    expect(brief(found)).toEqual([['src/merger.js', 4, 'risk', 'js-object-literal']]);
  });
});
