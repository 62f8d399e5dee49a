import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * The App's image as the docs tell people to run it. Docker cannot build or run here, so this checks
 * the files: every `docker run` in the docs carries the options bubblewrap needs, compose.yaml gives
 * the worker the same, the Dockerfile's entry checks the sandbox, and that check itself (a shell
 * script) names the missing option from what the container shows in /proc.
 */
const ROOT = process.cwd();
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const SANDBOX_OPTIONS = ['seccomp=unconfined', 'apparmor=unconfined', 'systempaths=unconfined'];
const CHECK = join(ROOT, 'docker', 'sandbox-check.sh');

const tmp = mkdtempSync(join(tmpdir(), 'slopgate-image-files-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Each `docker run` command in a text, its continuation lines (a trailing backslash) joined. */
function dockerRuns(text: string): string[] {
  const joined = text.replace(/\\\n[#\s]*/g, ' ');
  return [...joined.matchAll(/docker run\b[^\n`]*/g)].map((m) => m[0]);
}

describe('docker run in the docs', () => {
  const files = [
    'README.md',
    'Dockerfile',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const runs = files.flatMap((f) => dockerRuns(read(f)).map((cmd) => ({ f, cmd })));

  it('is shown for the server and the worker', () => {
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(runs.some((r) => r.cmd.includes('slopgate worker') || r.cmd.includes('slopgate.js worker'))).toBe(true);
  });

  it('always carries the three options the sandbox needs', () => {
    for (const r of runs) {
      const missing = SANDBOX_OPTIONS.filter((o) => !r.cmd.includes(`--security-opt ${o}`));
      expect({ ...r, missing }).toEqual({ ...r, missing: [] });
    }
  });
});

describe('compose.yaml (a local trial)', () => {
  const compose = parse(read('compose.yaml')) as {
    services: Record<
      string,
      {
        image?: string;
        build?: string;
        command?: string[];
        environment?: Record<string, string>;
        security_opt?: string[];
        ports?: string[];
      }
    >;
  };

  it('runs PostgreSQL, the web tier and a worker on the same database', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['app', 'postgres', 'worker']);
    const { app, worker } = compose.services;
    expect(app!.environment!.SLOPGATE_ROLE).toBe('web');
    expect(app!.ports).toEqual(['3000:3000']);
    expect(worker!.command).toEqual(['node', 'dist/bin/slopgate.js', 'worker']);
    expect(app!.environment!.DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
    expect(worker!.environment!.DATABASE_URL).toBe(app!.environment!.DATABASE_URL);
    expect(worker!.build).toBe('.');
  });

  it("gives the worker, which runs the PRs' tests, the sandbox's options", () => {
    expect(compose.services.worker!.security_opt).toEqual(SANDBOX_OPTIONS);
    // the web tier runs no tests: it says so rather than needing the options
    expect(compose.services.app!.environment!.SLOPGATE_SANDBOX_CHECK).toBe('off');
  });
});

describe('the Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('starts through the sandbox check and no longer claims G8 is skipped without the options', () => {
    expect(dockerfile).toMatch(/^COPY docker\/sandbox-check\.sh \/usr\/local\/bin\/slopgate-sandbox-check$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--", "\/usr\/local\/bin\/slopgate-sandbox-check"\]$/m);
    expect(dockerfile).not.toMatch(/G8 is skipped/);
  });

  it('carries the toolchains the docs list', () => {
    expect(dockerfile).toMatch(/COPY --from=golang:1\.(2[5-9]|[3-9]\d)-bookworm \/usr\/local\/go/);
    expect(dockerfile).toMatch(/GOTOOLCHAIN=auto/);
    expect(dockerfile).toMatch(/rustup component add rustfmt clippy/);
    expect(dockerfile).toMatch(/openjdk-\d+-jdk-headless maven/);
    expect(dockerfile).toMatch(/uv python install 3\.10 3\.12 3\.13 3\.14/);
    expect(dockerfile).toMatch(/python3-pytest/);
  });
});

describe("the image's sandbox check (docker/sandbox-check.sh)", () => {
  /** A /proc as a container shows it: seccomp filter on or off, an AppArmor profile, masked paths. */
  function fakeProc(name: string, o: { seccomp: boolean; apparmor: string; masked: boolean }): string {
    const dir = join(tmp, name);
    mkdirSync(join(dir, 'self', 'attr'), { recursive: true });
    writeFileSync(join(dir, 'self', 'status'), `Name:\tsh\nSeccomp:\t${o.seccomp ? 2 : 0}\nSeccomp_filters:\t${o.seccomp ? 1 : 0}\n`);
    writeFileSync(join(dir, 'self', 'attr', 'current'), `${o.apparmor}\n`);
    writeFileSync(
      join(dir, 'self', 'mountinfo'),
      '600 500 0:50 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n' +
        (o.masked
          ? '601 600 0:5 /null /proc/kcore rw,nosuid - devtmpfs udev rw\n602 600 0:55 / /proc/acpi ro,relatime - tmpfs tmpfs ro\n'
          : ''),
    );
    return dir;
  }
  const fakeBwrap = (ok: boolean) => {
    const p = join(tmp, ok ? 'bwrap-ok' : 'bwrap-fails');
    writeFileSync(
      p,
      ok
        ? '#!/bin/sh\nexit 0\n'
        : '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
    );
    chmodSync(p, 0o755);
    return p;
  };
  const run = (env: Record<string, string>) =>
    spawnSync('sh', [CHECK, 'sh', '-c', 'echo started "$0"', 'app'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    });

  it("names every option Docker's defaults left in place, in one line, and exits 2", () => {
    const r = run({
      SLOPGATE_CHECK_PROC: fakeProc('defaults', { seccomp: true, apparmor: 'docker-default (enforce)', masked: true }),
      SLOPGATE_CHECK_BWRAP: fakeBwrap(false),
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'slopgate: the test sandbox cannot start in this container: run it with --security-opt seccomp=unconfined ' +
        '--security-opt apparmor=unconfined --security-opt systempaths=unconfined (bwrap: bwrap: No permissions to create new namespace, ' +
        'likely because the kernel does not allow non-privileged user namespaces.)\n',
    );
  });

  it('names only what is missing', () => {
    const r = run({
      SLOPGATE_CHECK_PROC: fakeProc('only-paths', { seccomp: false, apparmor: 'unconfined', masked: true }),
      SLOPGATE_CHECK_BWRAP: fakeBwrap(false),
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^slopgate: the test sandbox cannot start in this container: run it with --security-opt systempaths=unconfined \(bwrap: /,
    );
    const host = run({
      SLOPGATE_CHECK_PROC: fakeProc('host', { seccomp: false, apparmor: 'unconfined', masked: false }),
      SLOPGATE_CHECK_BWRAP: fakeBwrap(false),
    });
    expect(host.status).toBe(2);
    expect(host.stderr.trim().split('\n')).toHaveLength(1);
    expect(host.stderr).toMatch(/see docs\/security\.md \(Containers\), or set SLOPGATE_SANDBOX_CHECK=off/);
  });

  it('starts the command when the sandbox works, or when the check is off', () => {
    const proc = fakeProc('fine', { seccomp: true, apparmor: 'docker-default (enforce)', masked: true });
    const ok = run({ SLOPGATE_CHECK_PROC: proc, SLOPGATE_CHECK_BWRAP: fakeBwrap(true) });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe('started app\n');
    const off = run({ SLOPGATE_CHECK_PROC: proc, SLOPGATE_CHECK_BWRAP: fakeBwrap(false), SLOPGATE_SANDBOX_CHECK: 'off' });
    expect(off.status).toBe(0);
    expect(off.stdout).toBe('started app\n');
  });

  it('runs the real bubblewrap where there is one', () => {
    if (spawnSync('sh', ['-c', 'command -v bwrap']).status !== 0) return;
    const r = run({});
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('started app\n');
  });
});
