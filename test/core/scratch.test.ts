import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MARKER, makeScratchDir, mountsUnder, ownerTag, selfOwner, sweepStaleScratch } from '../../src/core/scratch.js';
import { sweepStaging } from '../../src/testgate/deps/dep-cache.js';

const root = mkdtempSync(join(tmpdir(), 'scratch-test-'));
afterAll(() => {
  for (const mp of mountsUnder(root)) spawnSync('umount', ['-l', mp]);
  rmSync(root, { recursive: true, force: true });
});

/** A pid that ran and is gone. */
const deadPid = () => spawnSync('true').pid;

function plant(name: string, owner: { pid: number; start: string | null; host?: string }): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'run'), { recursive: true });
  writeFileSync(join(dir, 'run', 'file'), 'x');
  const marker = { tool: 'slopgate', kind: 'suite', host: selfOwner().host, createdAt: new Date().toISOString(), ...owner };
  writeFileSync(join(dir, MARKER), JSON.stringify(marker));
  return dir;
}

describe('scratch folders', () => {
  it('a folder is marked with its owner and gone after remove()', async () => {
    const s = await makeScratchDir('unit');
    const marker = JSON.parse(readFileSync(join(s.path, MARKER), 'utf8')) as { pid: number; kind: string };
    expect(marker).toMatchObject({ pid: process.pid, kind: 'unit' });
    await s.remove();
    expect(existsSync(s.path)).toBe(false);
  });

  it('the sweep removes only marked folders of a dead owner; never an unmarked one, a live one, or through a link', async () => {
    const stale = plant('slopgate-suite-stale', { pid: deadPid(), start: '1' });
    const reused = plant('slopgate-suite-reused', { pid: process.pid, start: 'not-my-start' });
    const mine = plant('slopgate-suite-mine', selfOwner());
    const foreign = join(root, 'slopgate-foreign-unmarked');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'keep'), 'x');
    const elsewhere = mkdtempSync(join(tmpdir(), 'scratch-test-target-'));
    const target = join(elsewhere, 'slopgate-target');
    mkdirSync(target);
    writeFileSync(
      join(target, MARKER),
      JSON.stringify({ tool: 'slopgate', kind: 'x', pid: deadPid(), start: '1', host: selfOwner().host, createdAt: '' }),
    );
    symlinkSync(target, join(root, 'slopgate-link'));
    // Another host's marker: its pid means nothing here, so only the age bound removes it.
    const otherHost = plant('slopgate-suite-other-host', { pid: deadPid(), start: '1', host: 'elsewhere.invalid' });
    const old = plant('slopgate-suite-other-host-old', { pid: deadPid(), start: '1', host: 'elsewhere.invalid' });
    const past = new Date(Date.now() - 2 * 24 * 60 * 60_000);
    utimesSync(join(old, MARKER), past, past);
    try {
      const removed = await sweepStaleScratch({ root });
      expect(removed.sort()).toEqual([old, reused, stale].sort());
      expect(existsSync(stale) || existsSync(reused) || existsSync(old)).toBe(false);
      for (const kept of [mine, foreign, otherHost, join(root, 'slopgate-link'), target]) expect(existsSync(kept)).toBe(true);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it.skipIf(process.getuid?.() !== 0)("the sweep unmounts a killed run's tmpfs under its folder before removing it", async () => {
    const stale = plant('slopgate-suite-mounted', { pid: deadPid(), start: '1' });
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'slopgate-run', join(stale, 'run')]).status).toBe(0);
    writeFileSync(join(stale, 'run', 'inside'), 'x');
    expect(mountsUnder(stale)).toEqual([join(stale, 'run')]);
    expect(await sweepStaleScratch({ root })).toContain(stale);
    expect(mountsUnder(stale)).toEqual([]);
    expect(existsSync(stale)).toBe(false);
  });

  it("the dependency cache's .staging: a dead maker's entries go, a live maker's and a recent unnamed one stay", async () => {
    const cache = join(root, 'cache');
    const staging = join(cache, '.staging');
    mkdirSync(staging, { recursive: true });
    const [host] = ownerTag().split('.');
    const dead = `${host}.${deadPid()}.1~shared-abc-0000`;
    const live = `${ownerTag()}~tree-def-1111`;
    const legacyNew = 'shared-ghi-2222';
    const legacyOld = 'trash-shared-jkl-3333';
    for (const n of [dead, live, legacyNew, legacyOld]) {
      mkdirSync(join(staging, n, 'deps'), { recursive: true });
      writeFileSync(join(staging, n, 'deps', 'f'), 'x');
    }
    const past = new Date(Date.now() - 2 * 24 * 60 * 60_000);
    utimesSync(join(staging, legacyOld), past, past);
    expect((await sweepStaging(cache)).sort()).toEqual([dead, legacyOld].sort());
    expect(existsSync(join(staging, live)) && existsSync(join(staging, legacyNew))).toBe(true);
  });
});
