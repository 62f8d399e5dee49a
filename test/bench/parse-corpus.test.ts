import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCorpus, parseCorpusBench, parseRepo } from '../../src/bench/parse-corpus.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(join(tmpdir(), 'slopgate-parse-corpus-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

describe('parse corpus bench', () => {
  it('pins every repository to a full commit and gives a reason for each expected-invalid file', () => {
    const repos = loadCorpus();
    expect(repos.length).toBeGreaterThanOrEqual(5);
    for (const r of repos) {
      expect(r.commit).toMatch(/^[0-9a-f]{40}$/);
      for (const e of r.expectedInvalid ?? []) expect(e.why.length).toBeGreaterThan(10);
    }
  });

  it('counts false errors apart from listed fixtures, and skips what the gate would not read as text', async () => {
    const root = tree({
      'src/ok.ts': "export type * as T from './t';\n",
      'src/broken.ts': 'export const a = (1;\n',
      'fixtures/bad.js': 'it(\n',
      'fixtures/listed-but-valid.js': 'export {};\n',
      'data/bin.java': Buffer.from('class A { String s = "\u0000"; }\n'),
      'README.md': '# not source\n',
    });
    const r = await parseRepo(root, {
      repo: 'o/r',
      commit: '0'.repeat(40),
      expectedInvalid: [
        { path: 'fixtures/bad.js', why: 'intentionally invalid' },
        { path: 'fixtures/listed-but-valid.js', why: 'stale entry' },
      ],
    });
    expect(r.files).toBe(4);
    expect(r.notText).toBe(1);
    expect(r.errors.map((e) => [e.path, e.line])).toEqual([['src/broken.ts', 1]]);
    expect(r.expectedRejected).toBe(1);
    expect(r.expectedAccepted).toEqual(['fixtures/listed-but-valid.js']);
  });

  it('skips with a message when there is no corpus', async () => {
    const lines: string[] = [];
    expect(await parseCorpusBench(undefined, (l) => lines.push(l))).toBe(0);
    expect(await parseCorpusBench(join(tmpdir(), 'no-such-slopgate-corpus'), (l) => lines.push(l))).toBe(0);
    expect(lines[0]).toMatch(/^parse corpus: skipped, no corpus directory/);
    expect(lines[1]).toMatch(/^parse corpus: skipped, .*no-such-slopgate-corpus does not exist/);
  });
});
