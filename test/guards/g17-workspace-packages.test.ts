import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli.js';
import type { Report } from '../../src/core/report.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

/** G17 on an npm workspace of three packages: imports of a sibling resolve to its source, not to `any`. */

async function probe(base: Record<string, FileContent>, head: Record<string, FileContent>) {
  const repo = prRepo(base, head);
  let out = '';
  await runCheck({ repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, only: ['G17'] }, (s) => (out += s));
  return (JSON.parse(out) as Report).findings.filter((f) => f.guard === 'G17');
}

const json = (v: unknown) => JSON.stringify(v, null, 2) + '\n';

/** @acme/app imports @acme/store (entry by `types` pointing at built output) and @acme/util (a JavaScript `main` shim: src/index.ts). */
const WORKSPACE: Record<string, FileContent> = {
  'package.json': json({ name: 'acme', private: true, workspaces: ['packages/*'] }),
  'tsconfig.json': json({ compilerOptions: { strict: true, module: 'esnext', moduleResolution: 'bundler', target: 'es2022' } }),
  'packages/store/package.json': json({
    name: '@acme/store',
    version: '1.0.0',
    types: './dist/index.d.ts',
    exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
  }),
  'packages/store/src/index.ts':
    "export class Store {\n  private items = new Map<string, string>();\n  get(key: string) {\n    return this.items.get(key);\n  }\n  set(key: string, value: string) {\n    this.items.set(key, value);\n  }\n}\nexport { slug } from './slug';\n",
  'packages/store/src/slug.ts': "export function slug(s: string): string {\n  return s.toLowerCase().replace(/\\s+/g, '-');\n}\n",
  // `main` is a CommonJS shim over the build output: the source entry src/index.ts is used instead.
  'packages/util/package.json': json({ name: '@acme/util', version: '1.0.0', main: 'index.js' }),
  'packages/util/index.js': "module.exports = require('./dist/index.js');\n",
  'packages/util/src/index.ts': 'export const clock = {\n  now(): number {\n    return 0;\n  },\n};\n',
  'packages/app/package.json': json({ name: '@acme/app', version: '1.0.0', dependencies: { '@acme/store': '*', '@acme/util': '*' } }),
  'packages/app/src/main.ts':
    "import { Store } from '@acme/store';\nimport { slug } from '@acme/store/slug';\nimport { clock } from '@acme/util';\n\nconst s = new Store();\ns.set(slug('A b'), String(clock.now()));\nexport const v = s.get('a-b');\n",
};

describe('G17 across workspace packages', () => {
  it('a call of a method the sibling package’s class does not have is flagged (entry from `types`, mapped to the source)', async () => {
    const found = await probe(WORKSPACE, {
      'packages/app/src/main.ts': `${WORKSPACE['packages/app/src/main.ts'] as string}s.clearAll();\n`,
    });
    expect(found.map((f) => [f.path, f.line, f.severity, f.evidence?.compilerCode, f.evidence?.declaredAt])).toEqual([
      ['packages/app/src/main.ts', 8, 'risk', 'TS2339', 'packages/store/src/index.ts:1'],
    ]);
    expect(found[0]!.message).toContain("Property 'clearAll' does not exist on type 'Store'");
  });

  it('a package whose main is a JavaScript shim resolves to src/index.ts; a subpath import to its src folder', async () => {
    const found = await probe(WORKSPACE, {
      'packages/app/src/main.ts': `${WORKSPACE['packages/app/src/main.ts'] as string}clock.later();\nslug('x', 'y');\n`,
    });
    expect(found.map((f) => [f.line, f.evidence?.compilerCode])).toEqual([
      [8, 'TS2339'],
      [9, 'TS2554'],
    ]);
  });

  it('members the sibling has, and a changed sibling keeping them, raise nothing', async () => {
    const found = await probe(WORKSPACE, {
      'packages/app/src/main.ts': `${WORKSPACE['packages/app/src/main.ts'] as string}s.set('b', 'c');\n`,
      'packages/util/src/index.ts':
        'export const clock = {\n  now(): number {\n    return Date.now();\n  },\n  later(): number {\n    return 1;\n  },\n};\n',
    });
    expect(found).toEqual([]);
  });

  it('the project’s own tsconfig paths for a package, exact or by pattern, win over the workspace mapping', async () => {
    const other =
      'export class Store {\n  clearAll() {}\n  get(k: string) {\n    return k;\n  }\n  set(k: string, v: string) {\n    return k + v;\n  }\n}\n';
    for (const paths of [{ '@acme/store': ['./packages/store/src/other.ts'] }, { '@acme/*': ['./packages/*/src/other.ts'] }]) {
      const found = await probe(
        {
          ...WORKSPACE,
          'tsconfig.json': json({ compilerOptions: { strict: true, moduleResolution: 'bundler', module: 'esnext', paths } }),
          'packages/store/src/other.ts': other,
          'packages/util/src/other.ts': 'export const clock = { now: () => 0 };\n',
        },
        { 'packages/app/src/main.ts': `${WORKSPACE['packages/app/src/main.ts'] as string}s.clearAll();\n` },
      );
      expect(found).toEqual([]);
    }
  });
});
