import { describe, expect, it } from 'vitest';
import type { Guard, GuardServices } from '../../src/core/guard.js';
import { servicesFor, UndeclaredService } from '../../src/gate/guard-services.js';
import { mayRunInThread, threadedGuards } from '../../src/gate/thread-placement.js';
import { GUARDS } from '../../src/guards/index.js';
import { gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';
import { undeclaredReader } from './fixtures/blocking-guards.js';

/** Every service a run can hold, as the App's worker hands them in (the objects are stand-ins). */
const ALL: GuardServices = {
  run: { repo: 'o/r', pr: 1, author: 'someone' },
  repoName: 'o/r',
  host: 'app',
  tests: { enabled: true, progress: () => undefined },
  baselineCache: { get: () => Promise.resolve(null), put: () => Promise.resolve() },
  history: { hotspots: () => Promise.resolve([]) },
  flaky: { knownFlaky: () => Promise.resolve([]) },
  linkChecker: { check: () => Promise.resolve({ status: 'ok', reason: 'stand-in' }) },
};

const guard = (needs: Guard['needs']): Guard => ({ id: 'T1', name: 'test', appliesTo: () => true, ...(needs ? { needs } : {}) });

async function inProcess(services: GuardServices): Promise<string[]> {
  const threaded = await threadedGuards({ guardThreads: true, services });
  return GUARDS.filter((g) => !threaded(g)).map((g) => g.id);
}

describe('where a guard runs follows from its needs', () => {
  it('keeps G8 and G16 here always, G9 and G14 only when the run holds the store or a link checker', async () => {
    expect(await inProcess(ALL)).toEqual(['G14', 'G16', 'G8', 'G9']);
    expect(await inProcess({ run: ALL.run!, repoName: 'o/r', host: 'action', tests: { enabled: true } })).toEqual(['G16', 'G8']);
    const off = await threadedGuards({ guardThreads: false, services: ALL });
    expect(GUARDS.filter(off)).toEqual([]);
  });

  it('keeps a guard here that reads a service only this process holds, and lets one reading plain data go', () => {
    expect(mayRunInThread(guard({ services: ['history'] }), ALL)).toBe(false);
    expect(mayRunInThread(guard({ services: ['history'] }), {})).toBe(true);
    expect(mayRunInThread(guard({ services: ['run', 'repoName', 'host', 'tests'] }), ALL)).toBe(true);
    expect(mayRunInThread(guard({ mainProcess: 'it says so', services: [] }), {})).toBe(false);
    expect(mayRunInThread(guard(undefined), ALL)).toBe(true);
  });
});

describe('a guard is handed the services it names, and no other', () => {
  it('passes the named ones through and throws, naming guard and service, on any other', () => {
    const view = servicesFor(guard({ services: ['history', 'repoName'] }), ALL);
    expect(view.history).toBe(ALL.history);
    expect(view.repoName).toBe('o/r');
    expect(() => view.linkChecker).toThrow(UndeclaredService);
    expect(() => view.tests).toThrow("T1 reads the run service 'tests' but does not name it in its needs.services");
    // Spreading copies only what the guard may read.
    expect(Object.keys({ ...view }).sort()).toEqual(['history', 'repoName']);
  });

  it('leaves a named service the run does not hold absent, and gives a guard without needs every service', () => {
    const view = servicesFor(guard({ services: ['history'] }), { repoName: 'o/r' });
    expect(view.history).toBeUndefined();
    expect(() => view.repoName).toThrow(UndeclaredService);
    expect(servicesFor(guard(undefined), ALL)).toBe(ALL);
  });

  it('turns an undeclared read into a guard-error that fails the guard test, here and in a guard thread', async () => {
    const repo = prRepo({ 'a.txt': 'a\n' }, { 'a.txt': 'b\n' });
    const here = { ...undeclaredReader, workerModule: undefined, id: 'GX6' };
    for (const [g, guardThreads] of [
      [undeclaredReader, true],
      [here, false],
    ] as const) {
      await expect(gate(repo, [g], { guardThreads, services: { repoName: 'o/r' } })).rejects.toThrow(
        new RegExp(`${g.id} .*reads the run service 'repoName' but does not name it`),
      );
    }
  }, 60_000);
});
