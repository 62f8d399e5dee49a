import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findToolchains, fsArgs, operatorReadOnlyPaths } from '../../src/sandbox/sandbox-fs.js';
import { effectiveIsolation } from '../../src/sandbox/sandbox.js';
import { isForbiddenEnvName } from '../../src/sandbox/sandbox-env.js';

const root = mkdtempSync(join(tmpdir(), 'slopgate-sandbox-fs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('sandbox filesystem layout', () => {
  it('mounts a toolchain found on PATH read-only, hides its credential files, and never a whole home', () => {
    const tool = join(root, 'opt', 'mytool');
    mkdirSync(join(tool, 'bin'), { recursive: true });
    writeFileSync(join(tool, 'bin', 'cargo'), '#!/bin/sh\n');
    chmodSync(join(tool, 'bin', 'cargo'), 0o755);
    writeFileSync(join(tool, 'credentials.toml'), 'token = "secret"\n');
    mkdirSync(join(tool, '.ssh'));
    const found = findToolchains({ PATH: `${join(tool, 'bin')}:/usr/bin:/bin`, HOME: root });
    expect(found.roots).toContain(tool);
    expect(found.path).toBe(`${join(tool, 'bin')}:/usr/bin:/bin`);
    const args = fsArgs({
      runRoot: join(root, 'run'),
      home: join(root, 'run', 'home'),
      tmpBytes: 1 << 20,
      toolchains: found,
    });
    const joined = args.join(' ');
    expect(joined).toContain(`--ro-bind ${tool} ${tool}`);
    expect(joined).toContain(`--ro-bind /dev/null ${join(tool, 'credentials.toml')}`);
    expect(joined).toContain(`--tmpfs ${join(tool, '.ssh')}`);
    expect(joined).not.toMatch(/--ro-bind \/root /);
    expect(joined).not.toContain('/etc/shadow');
    expect(joined).not.toContain('/etc/resolv.conf');
    for (const hostDir of ['/run', '/var', '/var/run', '/sys', '/root', '/home', '/work']) expect(args).not.toContain(hostDir);
    // The run's tree is the last, read-write mount.
    expect(args.slice(-3)).toEqual(['--bind', join(root, 'run'), join(root, 'run')]);
  });

  it('never resolv.conf (the egress proxy resolves names); operator paths only when absolute and existing', () => {
    const found = findToolchains({ PATH: '/usr/bin:/bin' });
    const args = fsArgs({ runRoot: join(root, 'r2'), home: join(root, 'r2'), tmpBytes: 1 << 20, toolchains: found });
    expect(args.join(' ')).not.toContain('/etc/resolv.conf');
    expect(operatorReadOnlyPaths({ SLOPGATE_SANDBOX_RO_PATHS: `relative:/:${root}:/does/not/exist` })).toEqual([root]);
  });

  it('an operator path under /tmp is bound after the fresh /tmp, so the tmpfs does not cover it', () => {
    const shared = '/tmp/slopgate-shared-node_modules';
    const found = findToolchains({ PATH: '/usr/bin:/bin' });
    const args = fsArgs({
      runRoot: join(root, 'r3'),
      home: join(root, 'r3'),
      tmpBytes: 1 << 20,
      toolchains: found,
      extraReadOnly: [shared],
    });
    const tmpfs = args.findIndex((a, i) => a === '--tmpfs' && args[i + 1] === '/tmp');
    const bind = args.findIndex((a, i) => a === '--ro-bind' && args[i + 1] === shared);
    expect(tmpfs).toBeGreaterThan(-1);
    expect(bind).toBeGreaterThan(tmpfs);
  });

  it('best-effort needs both the repository and the operator', () => {
    expect(effectiveIsolation('best-effort', {})).toBe('required');
    expect(effectiveIsolation('required', { SLOPGATE_TESTS_ISOLATION: 'best-effort' })).toBe('required');
    expect(effectiveIsolation('best-effort', { SLOPGATE_TESTS_ISOLATION: 'best-effort' })).toBe('best-effort');
  });

  it('secret-looking variable names never pass', () => {
    for (const name of [
      'PRIVATE_KEY',
      'PRIVATE_KEY_PATH',
      'WEBHOOK_SECRET',
      'GITHUB_TOKEN',
      'DATABASE_URL',
      'SOME_API_KEY',
      'KEYFILE',
      'NPM_TOKEN',
    ])
      expect(isForbiddenEnvName(name), name).toBe(true);
    for (const name of ['PATH', 'LANG', 'GOFLAGS', 'HOME']) expect(isForbiddenEnvName(name), name).toBe(false);
  });
});
