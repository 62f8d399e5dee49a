import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Report } from '../../src/core/report.js';
import { prRepo, removeTestRepos, type FileContent } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * G16 runs the project's own build (`npm run build`) in the sandbox at base and head, through the
 * real CLI with tests on. The project has no dependencies, so nothing is installed: its build is a
 * Node script that imports a name from the project's own module.
 */
const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'src', 'cli.ts');

afterAll(() => removeTestRepos());

function check(base: Record<string, FileContent>, head: Record<string, FileContent>): Report {
  const repo = prRepo(base, head);
  const r = spawnSync(TSX, [CLI, 'check', '--base', 'main', '--head', 'pr', '--only', 'G16', '--format', 'json'], {
    cwd: repo.dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (!r.stdout.trim()) throw new Error(`slopgate check printed nothing (exit ${String(r.status)}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Report;
}

const PKG = JSON.stringify({ name: 'site', version: '1.0.0', type: 'module', scripts: { build: 'node build.mjs' } });
const BUILD = "import { greet } from './src/lib.mjs';\nconsole.log(greet('site'));\n";
const LIB = 'export function greet(name) {\n  return `hello ${name}`;\n}\n';

needs('bwrap')('G16: the project’s build at base and head (real CLI, sandbox)', () => {
  it('the build passes at the base and fails at the head: a blocking build-broken naming the first error', () => {
    const report = check(
      { 'package.json': PKG, 'build.mjs': BUILD, 'src/lib.mjs': LIB },
      { 'src/lib.mjs': LIB.replace('greet', 'welcome') },
    );
    const found = report.findings.filter((f) => f.guard === 'G16');
    expect(found.map((f) => [f.category, f.severity])).toEqual([['build-broken', 'fail']]);
    expect(found[0]!.message).toContain(
      'The project\'s build (`npm run build`, package.json: "build": "node build.mjs") passes at the base and fails',
    );
    expect(found[0]!.message).toContain("does not provide an export named 'greet'");
    expect(report.sections.checks?.checks).toEqual([expect.objectContaining({ tool: 'build', status: 'ran', severity: 'fail' })]);
    expect(report.decision.outcome).not.toBe('PASS');
  });

  it('a build that already fails at the base: nothing, and the check says why', () => {
    const broken = LIB.replace('greet', 'other');
    const report = check(
      { 'package.json': PKG, 'build.mjs': BUILD, 'src/lib.mjs': broken },
      { 'src/lib.mjs': `${broken}export const x = 1;\n` },
    );
    expect(report.findings.filter((f) => f.guard === 'G16')).toEqual([]);
    expect(report.sections.checks?.checks).toEqual([
      expect.objectContaining({ tool: 'build', status: 'ran', reason: expect.stringContaining('already fails at the base') }),
    ]);
  });
});
