import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/trace.js';
import { MemoryCommandLedger, StoreCommandLedger, type CommandLedger } from '../../src/host/command-budget.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import type { Store } from '../../src/store/store.js';
import { BACKENDS } from './backends.js';

/** The per-user command bound's counter (issue 19, item 8), on each backend; the clock is the test's. */
const WINDOW = { limit: 3, windowMs: 10 * 60_000 };
const T0 = Date.parse('2026-11-22T12:00:00.000Z');

describe.each(BACKENDS.map((b) => [b().name, b] as const))('command attempts on %s', (_name, factory) => {
  const backend = factory();
  let a: Store;
  let b: Store;
  let now = T0;
  const clock = () => now;
  beforeAll(async () => {
    await backend.setup();
    a = await backend.open();
    b = await backend.open();
  });
  afterAll(() => backend.teardown());

  it('migration 4 creates the table', async () => {
    expect(MIGRATIONS.map((m) => m.version)).toContain(4);
    const { rows } = await a.db.query('SELECT version FROM schema_migrations WHERE version = 4');
    expect(rows).toHaveLength(1);
  });

  it('two ledgers on the store share one bound; the login is case-insensitive; the window moves on', async () => {
    const scope = { repo: 'acme/x', pr: 1, login: 'Spammer' };
    const one = new StoreCommandLedger(a, silentLogger, WINDOW, clock);
    const two = new StoreCommandLedger(b, silentLogger, WINDOW, clock);
    const ids = await Promise.all([one, two, one, two, one].map((l, i) => l.admit({ ...scope, login: i % 2 ? 'spammer' : 'SPAMMER' })));
    expect(ids.filter((id) => id !== null)).toHaveLength(3);
    expect(await one.admit({ ...scope, pr: 2 })).not.toBeNull();
    now = T0 + WINDOW.windowMs + 1;
    expect(await two.admit(scope)).not.toBeNull();
  });

  it('a command answered once is a repeat within the window, not after it', async () => {
    now = T0;
    const scope = { repo: 'acme/y', pr: 1, login: 'asker' };
    const one = new StoreCommandLedger(a, silentLogger, WINDOW, clock);
    const two = new StoreCommandLedger(b, silentLogger, WINDOW, clock);
    expect(await one.settle(scope, (await one.admit(scope))!, 'help')).toBe(true);
    expect(await two.settle(scope, (await two.admit(scope))!, 'help')).toBe(false);
    expect(await two.settle(scope, (await two.admit(scope))!, 'recheck @abc')).toBe(true);
    expect(await one.admit(scope)).toBeNull(); // the repeat counted
    now = T0 + WINDOW.windowMs + 1;
    expect(await one.settle(scope, (await one.admit(scope))!, 'help')).toBe(true);
  });

  it('a store that does not answer: this process counts in memory, the bound still holds', async () => {
    const broken = {
      admitCommand: () => Promise.reject(new Error('connection refused')),
      settleCommand: () => Promise.reject(new Error('connection refused')),
    };
    const ledger: CommandLedger = new StoreCommandLedger(broken, silentLogger, WINDOW, clock);
    const scope = { repo: 'acme/z', pr: 1, login: 'x' };
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await ledger.admit(scope));
    expect(ids.filter((id) => id !== null)).toHaveLength(3);
    expect(await ledger.settle(scope, ids[0]!, 'help')).toBe(true);
    expect(await ledger.settle(scope, ids[1]!, 'help')).toBe(false);
  });
});

describe('the memory ledger', () => {
  it('forgets the least recently used scopes first when it is full', async () => {
    const ledger = new MemoryCommandLedger({ limit: 1, windowMs: 60_000 }, () => T0, 2);
    const s = (login: string) => ({ repo: 'r', pr: 1, login });
    expect(await ledger.admit(s('a'))).not.toBeNull();
    expect(await ledger.admit(s('b'))).not.toBeNull();
    expect(await ledger.admit(s('a'))).toBeNull();
    expect(await ledger.admit(s('c'))).not.toBeNull(); // b is forgotten, not a (a was used last)
    expect(await ledger.admit(s('a'))).toBeNull();
  });
});
