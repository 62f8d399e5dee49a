import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from './backends.js';
import { StoreBaselineCache } from '../../src/store/baseline-store.js';
import type { Store } from '../../src/store/store.js';
import type { BaselineKey } from '../../src/core/ports.js';
import type { SuiteResult } from '../../src/core/suite-result.js';

const key: BaselineKey = { repo: 'acme/app', baseTree: 'a'.repeat(40), command: 'pytest -q', lockfileHash: 'lock1' };

function suite(failing: string[]): SuiteResult {
  return {
    runner: 'pytest',
    command: 'pytest -q',
    status: 'ok',
    exitCode: failing.length ? 1 : 0,
    tests: [
      { id: 'py:tests/test_db.py::test_ok', status: 'passed', unit: 'tests/test_db.py' },
      ...failing.map((id) => ({ id, status: 'failed' as const, unit: 'tests/test_db.py', message: 'AssertionError: 1 != 2' })),
    ],
    units: [{ id: 'tests/test_db.py', kind: 'module', group: 'tests/test_db.py', status: 'ok' }],
    durationMs: 1234,
    outputTail: '1 failed, 1 passed',
    sha: 'c'.repeat(40),
  };
}

describe.each(BACKENDS.map((b) => [b().name, b] as const))('baseline cache in the store on %s', (_name, factory) => {
  const backend = factory();
  let store: Store;
  let cache: StoreBaselineCache;
  beforeAll(async () => {
    await backend.setup();
    store = await backend.open();
    cache = new StoreBaselineCache(store.db);
  });
  afterAll(() => backend.teardown());

  it('misses before a put, hits after it with the same result, and misses for any other key part', async () => {
    expect(await cache.get(key)).toBeNull();
    await cache.put(key, suite(['py:tests/test_db.py::test_row_factory']));
    expect(await cache.get(key)).toEqual(suite(['py:tests/test_db.py::test_row_factory']));
    for (const other of [{ repo: 'acme/other' }, { baseTree: 'b'.repeat(40) }, { command: 'pytest -x' }, { lockfileHash: 'lock2' }]) {
      expect(await cache.get({ ...key, ...other })).toBeNull();
    }
  });

  it('replaces the result when the same key is stored again (upsert), also from two workers at once', async () => {
    const k = { ...key, repo: 'acme/upsert' };
    await cache.put(k, suite(['py:t::a']));
    const other = new StoreBaselineCache((await backend.open()).db);
    await Promise.all([cache.put(k, suite(['py:t::b'])), other.put(k, suite(['py:t::b']))]);
    expect((await cache.get(k))!.tests.map((t) => t.id)).toEqual(['py:tests/test_db.py::test_ok', 'py:t::b']);
    const { rows } = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM baselines WHERE repo = $1', ['acme/upsert']);
    expect(rows[0]!.n).toBe(1);
  });

  it('treats a corrupt row as a miss, and a later put repairs it', async () => {
    const k = { ...key, repo: 'acme/corrupt' };
    await store.db.query(`INSERT INTO baselines (repo, base_tree, command, lockfile_hash, result) VALUES ($1, $2, $3, $4, $5::jsonb)`, [
      k.repo,
      k.baseTree,
      k.command,
      k.lockfileHash,
      JSON.stringify({ runner: 'pytest', tests: 'truncated' }),
    ]);
    expect(await cache.get(k)).toBeNull();
    await store.db.query(`UPDATE baselines SET result = '"just a string"'::jsonb WHERE repo = $1`, [k.repo]);
    expect(await cache.get(k)).toBeNull();
    await cache.put(k, suite([]));
    expect((await cache.get(k))!.status).toBe('ok');
  });
});
