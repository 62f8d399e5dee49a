import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execBuffered, spawnHelperPid } from '../../src/core/spawn-helper.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const opts = { cwd: process.cwd(), env, maxBuffer: 1 << 20 };

/** Starts the helper (a first command) and waits until it answers. */
async function helperUp(): Promise<number> {
  await execBuffered('true', [], opts);
  for (let i = 0; i < 300 && spawnHelperPid() === undefined; i++) await new Promise((r) => setTimeout(r, 20));
  const pid = spawnHelperPid();
  if (pid === undefined) throw new Error('the spawn helper did not start');
  return pid;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the spawn helper', () => {
  it('runs commands with their own folder, environment and input, and gives back output and exit status', async () => {
    const pid = await helperUp();
    expect(pid).not.toBe(process.pid);
    const r = await execBuffered('sh', ['-c', 'echo "$FOO:$HOME:$(pwd)"; cat; echo oops >&2; exit 3'], {
      cwd: '/tmp',
      env: { ...env, FOO: 'only-this-request' },
      input: 'from stdin\n',
      maxBuffer: 1 << 20,
    });
    // HOME is not passed: nothing of slopgate's own environment (or the helper's) reaches the command.
    expect(r.stdout.toString()).toBe('only-this-request::/tmp\nfrom stdin\n');
    expect(r.stderr.toString()).toBe('oops\n');
    expect(r.code).toBe(3);
    expect(spawnHelperPid()).toBe(pid);
    // Started by the helper, not by this process.
    expect((await execBuffered('sh', ['-c', 'echo $PPID'], opts)).stdout.toString().trim()).toBe(String(pid));
  });

  it('answers many requests at once, each with its own output, and large outputs whole', async () => {
    await helperUp();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => execBuffered('sh', ['-c', `printf '%s' ${String(i)}`], opts)));
    expect(results.map((r) => r.stdout.toString())).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));
    const big = await execBuffered('head', ['-c', String(3 << 20), '/dev/zero'], { ...opts, maxBuffer: 8 << 20 });
    expect(big.code).toBe(0);
    expect(big.stdout.length).toBe(3 << 20);
  });

  it('reports a missing program and an output over the limit as errors, as execFile does', async () => {
    await helperUp();
    const missing = await execBuffered('no-such-program-slopgate', [], opts);
    expect(missing.error?.code).toBe('ENOENT');
    expect(missing.code).toBeNull();
    const over = await execBuffered('head', ['-c', '5000', '/dev/zero'], { ...opts, maxBuffer: 1000 });
    expect(over.error?.code).toBe('ERR_CHILD_PROCESS_STDIO_MAXBUFFER');
  });

  it('never keeps its parent alive, and ends with it', async () => {
    // A process that starts the helper, runs a command through it and reports the helper's pid: it must
    // exit on its own (the idle helper holds nothing), and the helper must be gone after it.
    const script = `
      import(${JSON.stringify(join(process.cwd(), 'src/core/spawn-helper.ts'))}).then(async (m) => {
        await m.execBuffered('true', [], { cwd: '/', env: { PATH: process.env.PATH }, maxBuffer: 1024 });
        while (m.spawnHelperPid() === undefined) await new Promise((r) => setTimeout(r, 10));
        const r = await m.execBuffered('echo', ['through the helper'], { cwd: '/', env: { PATH: process.env.PATH }, maxBuffer: 1024 });
        console.log(m.spawnHelperPid(), r.stdout.toString().trim());
      });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const [pid, said] = [Number(out.split(' ')[0]), out.slice(out.indexOf(' ') + 1).trim()];
    expect(said).toBe('through the helper');
    expect(pid).toBeGreaterThan(0);
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
  }, 60_000);
});
