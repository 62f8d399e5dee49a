import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { mountsUnder } from '../../src/core/scratch.js';
import { prRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * The real CLI, with tests on in the sandbox, on a tiny Python project (no dependencies: tests.install
 * off, so nothing comes from a registry), in a temp dir of its own: a finished run and an interrupted
 * one leave no folder, no mount and no process behind.
 */

const CLI = join(process.cwd(), 'src', 'cli.ts');
const work = mkdtempSync(join(tmpdir(), 'slopgate-test-left-'));
const TMP = join(work, 'tmp');
const CONFIG = join(work, 'slopgate.yml');
afterAll(() => {
  for (const mp of mountsUnder(work)) spawnUmount(mp);
  rmSync(work, { recursive: true, force: true });
});

function spawnUmount(mp: string): void {
  spawn('umount', ['-l', mp], { stdio: 'ignore' });
}

const BASE = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
  'calc.py': 'def add(a, b):\n    return a + b\n',
  'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
};

/** What is in the private temp dir (tsx's own loader cache is the harness's, not slopgate's) and mounted under it. */
function leftovers(): { entries: string[]; mounts: string[]; processes: number } {
  const entries = existsSync(TMP) ? readdirSync(TMP).filter((n) => !n.startsWith('tsx-')) : [];
  let processes = 0;
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(TMP)) processes++;
    } catch {
      // gone
    }
  }
  return { entries, mounts: mountsUnder(TMP), processes };
}

function check(dir: string, onStarted?: (kill: (s: NodeJS.Signals) => void) => void): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        CLI,
        'check',
        '--repo',
        dir,
        '--base',
        'main',
        '--head',
        'pr',
        '--format',
        'json',
        '--only',
        'G8',
        '--config',
        CONFIG,
      ],
      {
        // tsx is resolved from the project's own node_modules.
        cwd: process.cwd(),
        env: { ...process.env, TMPDIR: TMP, NO_COLOR: '1', SLOPGATE_BASELINE_CACHE_DIR: join(work, 'baselines') },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    onStarted?.((s) => child.kill(s));
    child.on('close', (code) => done({ code, stderr }));
  });
}

needs('pytest', 'bwrap')('slopgate check leaves nothing behind', () => {
  it('three finished runs with tests on: the temp dir holds what it held before, no mount under it', async () => {
    writeFileSync(CONFIG, 'tests:\n  install: "off"\n  reruns: 0\n');
    mkdirSync(TMP, { recursive: true });
    const before = leftovers();
    for (let i = 0; i < 3; i++) {
      const repo = prRepo(BASE, { 'calc.py': `def add(a, b):\n    return b + a  # ${i}\n` });
      const r = await check(repo.dir);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(leftovers()).toEqual(before);
    expect(before).toEqual({ entries: [], mounts: [], processes: 0 });
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s while a test sleeps: exit %i, sandboxes ended, nothing left', async (signal, code) => {
    writeFileSync(CONFIG, 'tests:\n  install: "off"\n  reruns: 0\n');
    mkdirSync(TMP, { recursive: true });
    const repo = prRepo(
      {
        ...BASE,
        'test_calc.py': 'import time\nfrom calc import add\n\n\ndef test_add():\n    time.sleep(120)\n    assert add(2, 3) == 5\n',
      },
      { 'calc.py': 'def add(a, b):\n    return b + a\n' },
    );
    const r = await check(repo.dir, (kill) => {
      // Interrupted once a suite runs in its sandbox (a process whose command line names the private temp dir).
      const poll = setInterval(() => {
        if (leftovers().processes > 0) {
          clearInterval(poll);
          setTimeout(() => kill(signal), 1000);
        }
      }, 200);
    });
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr).toContain(`slopgate: interrupted (${signal})`);
    expect(leftovers()).toEqual({ entries: [], mounts: [], processes: 0 });
  });
});
