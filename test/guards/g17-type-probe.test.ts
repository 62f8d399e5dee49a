import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli.js';
import type { Report } from '../../src/core/report.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';
import { probeSkip, ProbeTimeout } from '../../src/guards/g17-type-probe/index.js';
import { buildProgram, loadCompiler, programOptions } from '../../src/guards/g17-type-probe/program.js';

/** Gates base → head through the real CLI (`slopgate check --only G17 --format json`) and returns the report. */
async function check(base: Record<string, FileContent>, head: Record<string, FileContent>): Promise<Report> {
  const repo = prRepo(base, head);
  let out = '';
  await runCheck({ repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, only: ['G17'] }, (s) => (out += s));
  return JSON.parse(out) as Report;
}

const probe = async (base: Record<string, FileContent>, head: Record<string, FileContent>) =>
  (await check(base, head)).findings.filter((f) => f.guard === 'G17');

const brief = (found: { path?: string; line?: number; severity: string; evidence?: Record<string, unknown> }[]) =>
  found.map((f) => [f.path, f.line, f.severity, f.evidence?.compilerCode]);

const DEEP_MERGE = 'export function deepMerge(a: object, b: object) {\n  return { ...a, ...b };\n}\n';

describe('G17 type probe', () => {
  it('an object whose method the callers still call is replaced by one without it: the changed declaration is flagged', async () => {
    const base = {
      'src/deep-merge.ts': DEEP_MERGE,
      'src/merger.ts': "import { deepMerge } from './deep-merge';\n\nexport const merger = { merge: deepMerge };\n",
      'src/config.ts':
        "import { merger } from './merger';\n\nexport function load(defaults: object, user: object) {\n  return merger.merge(defaults, user);\n}\n",
    };
    const found = await probe(base, {
      'src/merger.ts': 'import { deepMerge } from \'./deep-merge\';\n\nexport const merger = { "combine": deepMerge };\n',
    });
    expect(brief(found)).toEqual([['src/merger.ts', 3, 'risk', 'TS2339']]);
    expect(found[0]!.category).toBe('invented-api');
    expect(found[0]!.message).toContain('src/config.ts:4');
    expect(found[0]!.message).toContain("Property 'merge' does not exist");
  });

  it('in JavaScript, a call of a method that a class of the repository does not have is flagged', async () => {
    const base = {
      'lib/queue.js':
        'export class Queue {\n  constructor() {\n    this.items = [];\n  }\n  push(item) {\n    this.items.push(item);\n  }\n}\n',
      'lib/main.js': "import { Queue } from './queue.js';\n\nconst q = new Queue();\nq.push(1);\n",
    };
    const found = await probe(base, {
      'lib/main.js': "import { Queue } from './queue.js';\n\nconst q = new Queue();\nq.push(1);\nq.drain();\n",
    });
    expect(brief(found)).toEqual([['lib/main.js', 5, 'risk', 'TS2339']]);
  });

  it('a changed line calling a method that a class declared in the repository does not have is flagged on that line', async () => {
    const base = {
      'src/cache.ts':
        'export class Cache {\n  private items = new Map<string, string>();\n  get(key: string) {\n    return this.items.get(key);\n  }\n}\n',
      'src/use.ts': "import { Cache } from './cache';\n\nexport const c = new Cache();\nexport const a = c.get('a');\n",
    };
    const found = await probe(base, {
      'src/use.ts': "import { Cache } from './cache';\n\nexport const c = new Cache();\nexport const a = c.get('a');\nc.invalidateAll();\n",
    });
    expect(brief(found)).toEqual([['src/use.ts', 5, 'risk', 'TS2339']]);
    expect(found[0]!.evidence?.declaredAt).toBe('src/cache.ts:1');
    expect(found[0]!.evidence?.receiver).toBe('c');
  });

  it('a wrong argument count for a function of the repository is flagged', async () => {
    const base = { 'src/add.ts': 'export function add(a: number, b: number) {\n  return a + b;\n}\n' };
    const found = await probe(base, { 'src/main.ts': "import { add } from './add';\n\nexport const x = add(1, 2, 3);\n" });
    expect(brief(found)).toEqual([['src/main.ts', 3, 'risk', 'TS2554']]);
  });

  it('a missing member of a class or object declared in the same TypeScript file fails; in JavaScript it stays a risk', async () => {
    const ts =
      'export class Store {\n  load() {\n    return 1;\n  }\n}\nexport const merger = { merge: (a: object) => a };\nnew Store().load();\n';
    const js = 'export class Store {\n  load() {\n    return 1;\n  }\n}\nnew Store().load();\n';
    const found = await probe(
      { 'src/store.ts': ts, 'lib/store.js': js },
      {
        'src/store.ts': ts + 'new Store().save();\nmerger.merg({});\n',
        'lib/store.js': js + 'new Store().save();\n',
      },
    );
    expect(brief(found).sort()).toEqual([
      ['lib/store.js', 7, 'risk', 'TS2339'],
      ['src/store.ts', 8, 'fail', 'TS2339'],
      ['src/store.ts', 9, 'fail', 'TS2551'],
    ]);
    expect(found.find((f) => f.line === 9)?.message).toContain("Did you mean 'merge'?");
    expect(found.find((f) => f.line === 8)?.remediation).toContain('src/store.ts:1');
  });

  it('an error that was already there at the base is not new', async () => {
    const base = {
      'src/cache.ts': 'export class Cache {\n  get(key: string) {\n    return key;\n  }\n}\n',
      'src/use.ts': "import { Cache } from './cache';\n\nconst c = new Cache();\nc.invalidateAll();\n",
    };
    const found = await probe(base, {
      'src/use.ts':
        "import { Cache } from './cache';\n\nconst c = new Cache();\nc.invalidateAll(); // the same error, on a line the PR rewrote\n",
    });
    expect(found).toEqual([]);
  });

  it('a package that is not installed gives any: calls on it are never findings', async () => {
    const report = await check(
      { 'package.json': '{ "name": "app", "dependencies": { "lodash": "4" } }\n', 'src/a.ts': 'export const a = 1;\n' },
      {
        'src/a.ts':
          "import _ from 'lodash';\nimport { Client } from '@acme/sdk';\n\nexport const a = _.mergeEverything({}, {});\nexport const b = new Client().doesNotExist(1, 2, 3);\nclass Mine extends Client {}\nnew Mine().nope();\n",
      },
    );
    expect(report.findings.filter((f) => f.guard === 'G17')).toEqual([]);
    expect(report.guards.find((g) => g.id === 'G17')?.status).toBe('pass');
  });

  it('plain JavaScript whose values are any (parameters without JSDoc) gives nothing', async () => {
    const found = await probe(
      { 'lib/run.js': 'export function run(job) {\n  return job;\n}\n' },
      { 'lib/run.js': 'export function run(job, opts) {\n  job.start(opts.retries);\n  return job.result.value();\n}\n' },
    );
    expect(found).toEqual([]);
  });

  it('a member that a lib type lacks is left alone: a global declaration elsewhere could add it', async () => {
    const found = await probe({ 'src/a.ts': 'export const a = 1;\n' }, { 'src/a.ts': 'export const a = 1;\nwindow.dataLayer.push({});\n' });
    expect(found).toEqual([]);
  });
  it('shapes the corpus showed to be context lost, not invented: option objects, = {} defaults, unions, nullable callees', async () => {
    const found = await probe(
      {
        'src/a.ts': 'export const a = 1;\n',
        'src/types.ts': 'export interface Retry {\n  limit: number;\n}\nexport type Mapped<T> = { [K in keyof T]: T[K] };\n',
      },
      {
        'src/a.ts':
          [
            "import { defineComponent } from 'vue';",
            "import type { Retry, Mapped } from './types';",
            'export const a = 1;',
            // `this` of a method in an options object passed to an uninstalled package
            'export const C = defineComponent({ methods: { go() { return this.data1; } } });',
            // a `= {}` default whose real type came from the context
            'export const api = { shot(options = {}) { return options.path; } };',
            // a member that one part of the union has: narrowing, not an invented API
            'export function limit(r: number | Retry) { return r.limit; }',
            // a callee that may be void: nullability, not an invented API
            'let teardown: (() => void) | undefined | void;',
            'export function stop() { teardown?.(); }',
            // a computed (mapped) type
            'export function m(x: Mapped<Retry>) { return x.nothing; }',
          ].join('\n') + '\n',
      },
    );
    expect(found).toEqual([]);
  });
  it('running out of time or a compiler crash is a skip that says why, never a pass or a finding', async () => {
    const ts = await loadCompiler();
    expect(probeSkip(new ProbeTimeout(), ts).reason).toMatch(/ran out of its time budget/);
    expect(probeSkip(new ts.OperationCanceledException(), ts).reason).toMatch(/ran out of its time budget/);
    expect(probeSkip(new RangeError('Maximum call stack size exceeded'), ts).reason).toBe(
      'the TypeScript compiler failed on this tree (Maximum call stack size exceeded); nothing was concluded',
    );
  });
  it('the deadline is asked before each tree file is parsed, so a large program stops building in time', async () => {
    const ts = await loadCompiler();
    const files = new Map([
      ['src/a.ts', "import { b } from './b';\nexport const a = b;\n"],
      ['src/b.ts', "import { c } from './c';\nexport const b = c;\n"],
      ['src/c.ts', 'export const c = 1;\n'],
    ]);
    const { options } = programOptions(ts, undefined);
    let parsed = 0;
    const build = (limit: number) => () =>
      buildProgram(ts, {
        files,
        roots: ['src/a.ts'],
        options,
        maxProgramFiles: 10,
        beforeParse: () => {
          if (++parsed > limit) throw new ProbeTimeout();
        },
      });
    expect(build(1)).toThrow(ProbeTimeout);
    expect(parsed).toBe(2);
    parsed = 0;
    expect(
      build(10)()
        .getSourceFiles()
        .filter((f) => f.fileName.includes('/src/')),
    ).toHaveLength(3);
    expect(parsed).toBe(3);
  });
});
