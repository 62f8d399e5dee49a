import { createServer, type Server } from 'node:net';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runSandboxed, type SandboxOptions } from '../../src/sandbox/sandbox.js';
import { overrideSandboxCapabilities, sandboxCapabilities, sandboxCapabilitiesAsync } from '../../src/sandbox/sandbox-probe.js';
import { readdirSync, readFileSync } from 'node:fs';
import { needs } from '../helpers/toolchains.js';

function processesWithArg(arg: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(arg)) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

let root: string;
function opts(command: string, extra: Partial<SandboxOptions> = {}): SandboxOptions {
  const run = mkdtempSync(join(root, 'run-'));
  for (const d of ['home', 'tmp', 'cache', 'work']) mkdirSync(join(run, d));
  return {
    command,
    cwd: join(run, 'work'),
    home: join(run, 'home'),
    tmp: join(run, 'tmp'),
    cacheDir: join(run, 'cache'),
    timeoutMs: 20_000,
    memoryMb: 1024,
    maxProcesses: 64,
    ...extra,
  };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'slopgate-sandbox-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

needs('python3')('sandbox', () => {
  it('a PR test cannot read the app environment: secrets, tokens and database URLs are not passed', async () => {
    process.env.SLOPGATE_FAKE_SECRET = 'hunter2-secret-value';
    process.env.GITHUB_TOKEN_FOR_TEST = 'ghs_fake';
    process.env.DATABASE_URL ??= 'postgres://user:pw@db/x';
    try {
      const r = await runSandboxed(opts('env; echo HOME=$HOME; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"'));
      expect(r.exitCode).toBe(0);
      expect(r.stdout).not.toContain('hunter2-secret-value');
      expect(r.stdout).not.toContain('ghs_fake');
      expect(r.stdout).not.toContain('postgres://');
      expect(r.stdout).toMatch(/^CI=true$/m);
      expect(r.stdout).toMatch(/HOME=.*\/home$/m);
    } finally {
      delete process.env.SLOPGATE_FAKE_SECRET;
      delete process.env.GITHUB_TOKEN_FOR_TEST;
    }
  });

  it('runs side by side each see their own HOME in /etc/passwd (Java reads user.home from it)', async () => {
    const home = 'awk -F: \'$1=="sandbox"{print $6}\' /etc/passwd';
    const first = opts(`sleep 2; ${home}`);
    const started = runSandboxed(first);
    await new Promise((r) => setTimeout(r, 500));
    const second = opts(home);
    const [a, b] = await Promise.all([started, runSandboxed(second)]);
    expect(a.stdout.trim()).toBe(first.home);
    expect(b.stdout.trim()).toBe(second.home);
  });

  it('a PR test cannot reach a server the host started on 127.0.0.1 (no network)', async () => {
    if (sandboxCapabilities().unavailable) {
      console.warn(`skipped: ${sandboxCapabilities().unavailable}`);
      return;
    }
    const server: Server = createServer((s) => s.end('hello-from-host\n'));
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    const port = (server.address() as { port: number }).port;
    const probe = `node -e "const s=require('net').connect(${port},'127.0.0.1');s.on('data',d=>{process.stdout.write(String(d));process.exit(0)});s.on('error',e=>{console.log('blocked',e.code);process.exit(3)})"`;
    try {
      const isolated = await runSandboxed(opts(probe));
      expect(isolated.stdout).not.toContain('hello-from-host');
      expect(isolated.exitCode).toBe(3);
      expect(isolated.isolation.network).toBe('isolated');
    } finally {
      server.close();
    }
  });

  it('loopback still works inside the sandbox (tests that start their own local server pass)', async () => {
    const r = await runSandboxed(
      opts(
        `node -e "const n=require('net');const srv=n.createServer(s=>s.end('pong'));srv.listen(0,'127.0.0.1',()=>{n.connect(srv.address().port,'127.0.0.1').on('data',d=>{console.log(String(d));process.exit(0)})})"`,
      ),
    );
    expect(r.stdout).toContain('pong');
    expect(r.exitCode).toBe(0);
  });

  it('a fork bomb is stopped by the process limit and leaves no process behind', async () => {
    const o = opts('bomb() { bomb | bomb & }; bomb; sleep 30', { maxProcesses: 48, timeoutMs: 30_000 });
    const r = await runSandboxed(o);
    expect(r.killedBy).toBe('process-limit');
    expect(r.exitCode).not.toBe(0);
  });

  it('without a pids cgroup the /proc watchdog still stops a process storm', async () => {
    // Without the kernel limit a real fork bomb could exhaust the machine's pids (root ignores
    // RLIMIT_NPROC) before the first poll on a loaded CI box; a bounded storm proves the same watchdog.
    const caps = sandboxCapabilities();
    overrideSandboxCapabilities({ ...caps, cgroups: caps.cgroups ? { ...caps.cgroups, pids: null } : null });
    try {
      const r = await runSandboxed(
        opts('for i in $(seq 1 400); do sleep 30 & done; wait', { maxProcesses: 48, timeoutMs: 30_000, pollMs: 20 }),
      );
      expect(r.killedBy).toBe('process-limit');
      expect(r.isolation.processLimit).not.toBe('cgroup');
    } finally {
      overrideSandboxCapabilities(caps);
    }
  });

  it('an infinite loop is killed at the wall-clock timeout, children included', async () => {
    const r = await runSandboxed(opts('(while :; do :; done) & while :; do :; done', { timeoutMs: 1500 }));
    expect(r.killedBy).toBe('timeout');
    expect(r.exitCode).not.toBe(0);
  });

  it('a background process that ignores SIGTERM does not outlive the run', async () => {
    const marker = `${process.pid}.${Date.now() % 100000}`;
    const r = await runSandboxed(opts(`sh -c 'trap "" TERM; exec sleep 6${marker}' & echo started; exit 0`));
    expect(r.stdout).toContain('started');
    expect(r.exitCode).toBe(0);
    expect(processesWithArg(`6${marker}`)).toEqual([]);
  });

  it('output is capped with an honest truncation marker', async () => {
    const r = await runSandboxed(opts('yes abcdefgh | head -c 300000; echo; echo THE-END', { maxOutputBytes: 10_000 }));
    expect(r.stdout.length).toBeLessThan(12_000);
    expect(r.stdout).toMatch(/\[… \d+ bytes truncated\]/);
    expect(r.stdout).toContain('THE-END');
    expect(r.truncatedBytes).toBeGreaterThan(280_000);
  });

  it('the address-space limit stops a test that allocates without bound', async () => {
    const r = await runSandboxed(opts(`python3 -c "x = bytearray(900 * 1024 * 1024); print('allocated')"`, { memoryMb: 256 }));
    expect(r.stdout).not.toContain('allocated');
    expect(r.exitCode).not.toBe(0);
  });

  it('Node code that uses WebAssembly (fetch, vitest) still runs under the address-space limit', async () => {
    // V8 reserves ~10 GB per wasm memory unless the trap handler is off; without that, undici's
    // wasm HTTP parser behind fetch died with "Cannot allocate Wasm memory".
    const r = await runSandboxed(
      opts(`node -e "fetch('http://127.0.0.1:5999').then(() => {}, (e) => console.log('fetch failed:', e.cause && e.cause.code))"`),
    );
    expect(r.stderr).not.toContain('Cannot allocate Wasm memory');
    expect(r.stdout).toContain('fetch failed: ECONNREFUSED');
  });

  it('a background run (the project linters and type checkers) runs every process at a lower CPU priority; the suite does not', async () => {
    // `nice` without arguments prints the niceness it runs at; a child started inside inherits it.
    const background = await runSandboxed(opts('nice; sh -c nice; cat /proc/self/autogroup 2>/dev/null || echo none', { niceness: 10 }));
    const [own, child, group] = background.stdout.trim().split('\n');
    expect([own, child]).toEqual(['10', '10']);
    // The run's own session is a scheduling group of its own where the kernel makes one: lowered too.
    if (group !== 'none') expect(group).toMatch(/ nice 10$/);
    const suite = await runSandboxed(opts('nice; cat /proc/self/autogroup 2>/dev/null || echo none'));
    const [suiteNice, suiteGroup] = suite.stdout.trim().split('\n');
    expect(suiteNice).toBe('0');
    if (suiteGroup !== 'none') expect(suiteGroup).toMatch(/ nice 0$/);
  });
});

it('the probe without blocking finds what the blocking probe finds, and then answers both', async () => {
  const blocking = sandboxCapabilities();
  overrideSandboxCapabilities(undefined);
  try {
    const asynchronous = await sandboxCapabilitiesAsync();
    expect(asynchronous).toEqual(blocking);
    // One answer per process: the blocking probe now returns the same object without probing again.
    expect(sandboxCapabilities()).toBe(asynchronous);
  } finally {
    overrideSandboxCapabilities(undefined);
  }
});
