import { createServer, type Server } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSandboxed, type SandboxOptions, type SandboxResult } from '../../src/sandbox/sandbox.js';
import { sandboxCapabilities } from '../../src/sandbox/sandbox-probe.js';
import { runSuite, SuiteWorkspace } from '../../src/testgate/run-suite.js';
import { exitCodeRunner } from '../../src/testgate/runners/node.js';
import { TestRepo } from '../helpers/git-repo.js';
import { execBuffered, spawnHelperPid } from '../../src/core/spawn-helper.js';

/**
 * Attacks a hostile PR's tests would try, run against the real bubblewrap sandbox. Each asserts that
 * the secret, file, socket or process is out of reach and that nothing survives the run.
 */
const caps = sandboxCapabilities();
const why = caps.unavailable;
if (why) console.warn(`attack-sandbox tests skipped: ${why}`);

const SECRETS = {
  PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY----- attack-private-key',
  WEBHOOK_SECRET: 'attack-webhook-secret',
  GITHUB_TOKEN: 'ghs_attacktoken123',
  DATABASE_URL: 'postgres://app:attack-db-password@127.0.0.1/slopgate',
  SOME_API_KEY: 'attack-api-key',
};

let root: string;
let outside: string; // a host dir outside every run's tree
let secretFile: string;
const servers: Server[] = [];
const hits: string[] = [];

function listen(server: Server, ...args: unknown[]): Promise<void> {
  servers.push(server);
  return new Promise((res) => (server.listen as (...a: unknown[]) => void)(...args, () => res()));
}

function opts(command: string, extra: Partial<SandboxOptions> = {}): SandboxOptions {
  const run = mkdtempSync(join(root, 'run-'));
  for (const d of ['home', 'tmp', 'cache', 'work']) mkdirSync(join(run, d));
  return {
    command,
    cwd: join(run, 'work'),
    home: join(run, 'home'),
    tmp: join(run, 'tmp'),
    cacheDir: join(run, 'cache'),
    writable: [run],
    timeoutMs: 60_000,
    memoryMb: 1024,
    maxProcesses: 128,
    ...extra,
  };
}

function noSecretIn(r: SandboxResult): void {
  const all = r.stdout + r.stderr;
  for (const v of Object.values(SECRETS)) expect(all).not.toContain(v);
  expect(all).not.toContain('fake-npm-token-from-host');
}

function processesWithArg(arg: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(arg)) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

const node = (js: string) => `node -e ${JSON.stringify(js).replace(/\$/g, '\\$')}`;

describe.skipIf(why !== null)('sandbox attacks (real bwrap)', () => {
  beforeAll(async () => {
    Object.assign(process.env, SECRETS);
    root = mkdtempSync(join(tmpdir(), 'slopgate-attack-'));
    outside = mkdtempSync(join(tmpdir(), 'slopgate-outside-'));
    secretFile = join(outside, '.npmrc');
    writeFileSync(secretFile, '//registry.npmjs.org/:_authToken=fake-npm-token-from-host\n', { mode: 0o600 });
    const record = (what: string) => (s: { end(): void }) => {
      hits.push(what);
      s.end();
    };
    await listen(createServer(record('unix')), join(outside, 'app.sock'));
    await listen(createServer(record('abstract')), '\0slopgate-attack-abstract');
  });
  afterAll(() => {
    for (const k of Object.keys(SECRETS)) delete process.env[k];
    for (const s of servers) s.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('umount /proc, then read the host process environment: umount is refused and host pids do not exist', async () => {
    const r = await runSandboxed(
      opts(
        `umount -l /proc 2>&1 || echo UMOUNT-REFUSED; cat /proc/${process.pid}/environ 2>&1 || echo NO-HOST-PID; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; cat /proc/1/environ | tr '\\0' '\\n'`,
      ),
    );
    expect(r.stdout).toContain('UMOUNT-REFUSED');
    expect(r.stdout).toContain('NO-HOST-PID');
    noSecretIn(r);
  });

  it('nsenter into a host network namespace: no host namespace is reachable and setns is refused', async () => {
    const server = createServer((s) => {
      hits.push('tcp');
      s.end('host-service\n');
    });
    await listen(server, 0, '127.0.0.1');
    const port = (server.address() as { port: number }).port;
    const r = await runSandboxed(
      opts(
        `for p in /proc/[0-9]*; do nsenter --net=$p/ns/net -- true 2>/dev/null && echo ENTERED $p; done; python3 -c "import socket; s=socket.create_connection(('127.0.0.1', ${port}), 2); print('CONNECTED', s.recv(64))" 2>&1 | tail -1`,
      ),
    );
    expect(r.stdout).not.toContain('ENTERED');
    expect(r.stdout).not.toContain('CONNECTED');
    expect(hits).not.toContain('tcp');
  });

  it('connect to a host unix socket (a temp dir outside the tree, /var/run/postgresql) and an abstract one: unreachable', async () => {
    const js = `const net=require('net');let n=0;for(const p of [${JSON.stringify(join(outside, 'app.sock'))},'/var/run/postgresql/.s.PGSQL.5432','/run/postgresql/.s.PGSQL.5432','\\0slopgate-attack-abstract']){const s=net.connect(p);s.on('connect',()=>console.log('CONNECTED',p));s.on('error',e=>console.log('refused',e.code));}`;
    const r = await runSandboxed(opts(node(js)));
    expect(r.stdout).not.toContain('CONNECTED');
    expect(r.stdout).toContain('refused');
    expect(hits).not.toContain('unix');
    expect(hits).not.toContain('abstract');
  });

  it('read a credentials file outside the tree, /root/.npmrc, /etc/shadow and the work dir: none exists inside', async () => {
    const r = await runSandboxed(
      opts(
        `for f in ${secretFile} /root/.npmrc /etc/shadow /etc/gshadow ${process.cwd()}/package.json; do cat "$f" 2>/dev/null && echo READ "$f" || echo MISSING "$f"; done; ls / ; ls -a /root`,
      ),
    );
    expect(r.stdout).not.toContain('READ ');
    expect(r.stdout).toContain(`MISSING ${secretFile}`);
    expect(r.stdout).toContain('MISSING /etc/shadow');
    expect(r.stdout).not.toMatch(/^work$/m);
    noSecretIn(r);
  });

  it('write a hook into the source repository’s .git/hooks: the repository is not there', async () => {
    const repo = TestRepo.create();
    repo.write({ 'a.txt': 'a\n' }).commit('a');
    const hook = join(repo.dir, '.git', 'hooks', 'post-checkout');
    const r = await runSandboxed(
      opts(`mkdir -p ${repo.dir}/.git/hooks 2>&1; printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > ${hook} && echo WROTE-HOOK`),
    );
    expect(existsSync(hook)).toBe(false);
    // Whatever it wrote landed in its own /tmp, which is gone.
    expect(existsSync(join(repo.dir, '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(r.exitCode).not.toBeNull();
  });

  it('a setsid daemon does not outlive the run', async () => {
    const marker = `slopgate-daemon-${process.pid}-${Date.now()}`;
    const o = opts(
      `setsid sh -c 'touch $HOME/daemon-1; sleep 300; :' ${marker} < /dev/null > /dev/null 2>&1 & nohup sh -c 'trap "" HUP TERM; touch $HOME/daemon-2; sleep 300; :' ${marker}-2 > /dev/null 2>&1 & sleep 0.5; echo started`,
    );
    const r = await runSandboxed(o);
    expect(r.stdout).toContain('started');
    expect(existsSync(join(o.home, 'daemon-1')) && existsSync(join(o.home, 'daemon-2'))).toBe(true);
    await new Promise((res) => setTimeout(res, 300));
    expect(processesWithArg(marker)).toEqual([]);
  });

  it('150 processes against a limit of 64: forks fail at the limit, the run is stopped, nothing survives', async () => {
    const marker = `slopgate-procs-${process.pid}-${Date.now()}`;
    const o = opts(`i=0; while [ $i -lt 150 ]; do sh -c 'echo x >> $HOME/started; sleep 120; :' ${marker} & i=$((i+1)); done; wait`, {
      maxProcesses: 64,
      pollMs: 50,
    });
    const r = await runSandboxed(o);
    expect(r.killedBy).toBe('process-limit');
    expect(r.isolation.processLimit).toBe(caps.cgroups?.pids ? 'cgroup' : r.isolation.processLimit);
    const started = existsSync(join(o.home, 'started'))
      ? readFileSync(join(o.home, 'started'), 'utf8').split('\n').filter(Boolean).length
      : 0;
    expect(started).toBeLessThanOrEqual(64);
    expect(processesWithArg(marker)).toEqual([]);
  });

  it.skipIf(!caps.cgroups?.memory)(
    '4 × 400 MB against 512 MB: the limit holds for the run, not per process',
    async () => {
      // b'\\x01' * n fills every page at memset speed, so the memory is really used.
      const alloc = `python3 -c "import time; b = b'\\x01' * (400 * 1024 * 1024); print('ALLOCATED', flush=True); time.sleep(3)"`;
      const r = await runSandboxed(opts(`for i in 1 2 3 4; do ${alloc} & done; wait`, { memoryMb: 512 }));
      const allocated = (r.stdout.match(/ALLOCATED/g) ?? []).length;
      expect(allocated).toBeLessThan(4);
      expect(r.memoryLimitHit).toBe(true);
      expect(r.isolation.memoryLimit).toBe('cgroup');
    },
    240_000,
  );

  it.skipIf(!caps.tmpfsMount)('writing 3 GB to disk stops at the run’s cap (tree, /tmp and /dev/shm)', async () => {
    const repo = TestRepo.create();
    const sha = repo.write({ 'a.txt': 'a\n' }).commit('a');
    const ws = await SuiteWorkspace.create(repo.dir, sha, join(root, 'unused'), {
      network: false,
      timeoutSec: 60,
      memoryMb: 2048,
      maxProcesses: 64,
      diskMb: 64,
    });
    try {
      const r = await ws.exec(
        'for d in . /tmp /dev/shm; do dd if=/dev/zero of=$d/big bs=1M count=3000 2>/dev/null; echo "$d $(du -m $d/big | cut -f1)"; done',
        60_000,
      );
      for (const line of r.stdout.trim().split('\n')) expect(Number(line.split(' ')[1]), line).toBeLessThanOrEqual(64);
      expect(r.stdout.trim().split('\n')).toHaveLength(3);
    } finally {
      await ws.dispose();
    }
    expect(existsSync(ws.root)).toBe(false);
  });

  it.skipIf(!caps.tmpfsMount)(
    'a run that fills its disk so full that not even its log could be written is named disk-limit, not "printed nothing"',
    async () => {
      const repo = TestRepo.create();
      const sha = repo.write({ 'a.txt': 'a\n' }).commit('a');
      const limits = { network: false, timeoutSec: 60, memoryMb: 2048, maxProcesses: 64, diskMb: 64 };
      const ws = await SuiteWorkspace.create(repo.dir, sha, join(root, 'unused'), limits);
      try {
        // What a huge build does: the target directory takes the whole tree, the log is lost with it.
        const result = await runSuite(
          ws,
          exitCodeRunner('custom', 'dd if=/dev/zero of=target bs=1M count=3000 >/dev/null 2>&1; exit 101'),
          limits,
        );
        expect(result.status).toBe('skipped');
        expect(result.killedBy).toBe('disk-limit');
        expect(result.skippedReason).toMatch(/filled its disk \(tests\.diskMb, 64 MiB\)/);
      } finally {
        await ws.dispose();
      }
    },
  );

  it('one run cannot poison another through /tmp, HOME or the caches; shared caches and toolchains are read-only', async () => {
    const cargoBin = caps.toolchains.roots.find((p) => p.endsWith('.cargo'));
    const plant = [
      'echo poisoned > /tmp/shared && echo WROTE /tmp',
      'echo poisoned > $TMPDIR/shared',
      'mkdir -p $GOCACHE $CARGO_HOME/bin && echo poisoned > $GOCACHE/planted && printf "#!/bin/sh\\necho wrapped\\n" > $CARGO_HOME/bin/cargo && chmod +x $CARGO_HOME/bin/cargo',
      ...(cargoBin ? [`echo '#!/bin/sh' > ${cargoBin}/bin/cargo 2>/dev/null && echo WROTE cargo wrapper`] : []),
      ...(caps.toolchains.goModCache ? [`touch ${caps.toolchains.goModCache}/planted 2>/dev/null && echo WROTE gomodcache`] : []),
      `touch $(dirname $(readlink -f $(command -v node)))/planted 2>/dev/null && echo WROTE node dir`,
      'ls -d /tmp/slopgate-suite-* /tmp/*/ 2>/dev/null',
    ].join('; ');
    const a = await runSandboxed(opts(plant));
    expect(a.stdout).not.toContain('WROTE cargo wrapper');
    expect(a.stdout).not.toContain('WROTE gomodcache');
    expect(a.stdout).not.toContain('WROTE node dir');
    const b = await runSandboxed(opts('cat /tmp/shared $TMPDIR/shared $GOCACHE/planted 2>&1; ls $CARGO_HOME/bin 2>&1; ls /tmp'));
    expect(b.stdout).not.toContain('poisoned');
    expect(b.stdout).not.toMatch(/^cargo$/m);
    if (cargoBin) expect(readFileSync(join(cargoBin, 'bin', 'cargo')).length).toBeGreaterThan(1000);
  });

  it('results planted as a symlink to a host file or a FIFO are removed before slopgate reads them', async () => {
    const repo = TestRepo.create();
    const sha = repo.write({ 'a.txt': 'a\n' }).commit('a');
    const ws = await SuiteWorkspace.create(repo.dir, sha, join(root, 'unused'), {
      network: false,
      timeoutSec: 60,
      memoryMb: 1024,
      maxProcesses: 64,
    });
    try {
      const r = await ws.exec(
        `ln -s ${secretFile} "$SLOPGATE_OUT/junit.xml" && mkfifo "$SLOPGATE_OUT/go.jsonl" && mkdir -p "$SLOPGATE_OUT/d" && ln -s /etc/passwd "$SLOPGATE_OUT/d/report.json" && echo ok > "$SLOPGATE_OUT/real.txt" && echo planted`,
        30_000,
      );
      expect(r.stdout).toContain('planted');
      const out = join(ws.root, 'out');
      expect(readdirSync(out).sort()).toEqual(['d', 'real.txt']);
      expect(readdirSync(join(out, 'd'))).toEqual([]);
    } finally {
      await ws.dispose();
    }
  });

  // Attacks the issue does not list.
  it('other ways out: fds, symlinks, the terminal, ptrace, namespaces, mounts, /sys, core dumps, keyrings', async () => {
    const py = [
      'import ctypes, fcntl, os, termios',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'def t(name, rc): print(name, "OK" if rc == 0 else "ERR%d" % ctypes.get_errno())',
      't("ptrace", libc.ptrace(16, 1, 0, 0))', // PTRACE_ATTACH to init
      't("unshare-user", libc.unshare(0x10000000))',
      't("unshare-mnt", libc.unshare(0x00020000))',
      't("mount", libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))',
      't("chroot", libc.chroot(b"/tmp"))',
      't("keyctl", libc.syscall(250, 0, 0, 0, 0, 0))',
      't("bpf", libc.syscall(321, 0, 0, 0))',
      't("io_uring", libc.syscall(425, 1, 0))',
      't("perf", libc.syscall(298, 0, 0, -1, -1, 0))',
      'try:\n fcntl.ioctl(1, termios.TIOCSTI, b"x"); print("TIOCSTI OK")\nexcept OSError as e: print("TIOCSTI ERR", e.errno)',
      'print("fds", sorted(os.listdir("/proc/self/fd")))',
      'print("uid", os.getuid(), os.geteuid())',
    ].join('\n');
    writeFileSync(join(root, 'probe.py'), py);
    // slopgate's spawn helper is up (its IPC channel is an open socket of this process): nothing of it may reach the run.
    await execBuffered('true', [], { cwd: root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, maxBuffer: 1024 });
    for (let i = 0; i < 300 && spawnHelperPid() === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    const helperPid = spawnHelperPid();
    expect(helperPid).toBeGreaterThan(0);
    const o = opts(
      [
        `cp ${join(root, 'probe.py')} . 2>/dev/null || true`,
        `ln -s /root/.npmrc leak1; ln -s ${secretFile} leak2; cat leak1 leak2 2>&1 | head -2`,
        'ls /sys 2>&1 | head -1; ls /run /var/run 2>&1 | head -2',
        'ulimit -c',
        'echo x > /proc/sys/kernel/core_pattern 2>&1 | head -1',
        'cat /proc/self/status | grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp):"',
        'ls -l /proc/self/fd',
        `kill -0 ${process.pid} 2>&1 || echo NO-HOST-KILL`,
        `kill -0 ${String(helperPid)} 2>&1 || echo NO-HELPER-KILL`,
        'ls /dev',
      ].join('; '),
    );
    // The probe script is copied into the tree (the tree is the only path both sides see).
    writeFileSync(join(o.cwd, 'probe.py'), py);
    const r = await runSandboxed({ ...o, command: `${o.command}; python3 probe.py` });
    const out = r.stdout + r.stderr;
    for (const name of ['ptrace', 'unshare-user', 'unshare-mnt', 'mount', 'chroot', 'keyctl', 'bpf', 'io_uring', 'perf'])
      expect(out).toMatch(new RegExp(`^${name} ERR`, 'm'));
    expect(out).toMatch(/^TIOCSTI ERR/m);
    expect(out).not.toContain('fake-npm-token-from-host');
    expect(out).toMatch(/^CapEff:\s+0+$/m);
    expect(out).toMatch(/^NoNewPrivs:\s+1$/m);
    expect(out).toMatch(/^Seccomp:\s+2$/m);
    expect(out).toMatch(/^0$/m); // ulimit -c
    expect(out).toContain('NO-HOST-KILL');
    expect(out).toContain('NO-HELPER-KILL');
    expect(out).toMatch(/uid 1000 1000/);
    expect(out).toMatch(/fds \['0', '1', '2', '3'\]/); // stdin/out/err and the listing's own fd
    expect(out).not.toMatch(/^(fuse|kvm|mem|kmem|port|sda|nvme|vda)/m);
    expect(readFileSync(secretFile, 'utf8')).toContain('fake-npm-token-from-host');
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
  });
});
