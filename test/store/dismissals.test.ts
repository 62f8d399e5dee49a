import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import type { Store } from '../../src/store/store.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';
import { gate } from '../helpers/gate.js';
import { BACKENDS } from './backends.js';

afterAll(() => removeTestRepos());

const badGuard: Guard = {
  id: 'T1',
  name: 'bad word',
  appliesTo: (f) => f.head.text !== null,
  checkFile: (f) =>
    (f.head.text ?? '')
      .split('\n')
      .flatMap((t, i) =>
        t.includes('BAD') ? [{ category: 'style' as const, severity: 'fail' as const, path: f.path, line: i + 1, message: 'bad' }] : [],
      )
      .map((x) => ({ ...x, remediation: 'drop it' })),
};

describe.each(BACKENDS.map((b) => [b().name, b] as const))('dismissals on %s', (_name, factory) => {
  const backend = factory();
  let store: Store;
  beforeAll(async () => {
    await backend.setup();
    store = await backend.open();
  });
  afterAll(() => backend.teardown());

  it('migration 3 creates the table', async () => {
    expect(MIGRATIONS.map((m) => m.version)).toContain(3);
    const { rows } = await store.db.query<{ version: number }>('SELECT version FROM schema_migrations WHERE version = 3');
    expect(rows).toHaveLength(1);
  });

  it('records who, when, why and the fingerprint; dismissing again through the same source replaces it', async () => {
    const at = new Date('2026-11-22T12:00:00.000Z');
    const a = { repo: 'acme/a', pr: 7, fingerprint: 'aaaaaaaaaaaa', category: 'style' } as const;
    await store.dismissFinding({ ...a, path: 'x.ts', by: 'alice', reason: 'first', source: 'command', at });
    const b = { ...a, fingerprint: 'bbbbbbbbbbbb', category: 'dead-link' };
    await store.dismissFinding({ ...b, by: 'bob', reason: 'inline', source: 'inline', at });
    await store.dismissFinding({ ...a, pr: 8, by: 'carol', reason: 'other PR', source: 'command' });
    const again = await store.dismissFinding({ ...a, path: 'x.ts', by: 'dave', reason: ' second ', source: 'command', at });
    expect(again).toEqual({ ...a, path: 'x.ts', by: 'dave', reason: 'second', source: 'command', at: at.toISOString() });

    const all = await store.listDismissals('acme/a', 7);
    expect(all.map((d) => [d.fingerprint, d.by, d.source])).toEqual([
      ['aaaaaaaaaaaa', 'dave', 'command'],
      ['bbbbbbbbbbbb', 'bob', 'inline'],
    ]);
    expect((await store.listDismissals('acme/a', 7, 'inline')).map((d) => d.fingerprint)).toEqual(['bbbbbbbbbbbb']);
    await expect(store.dismissFinding({ ...a, fingerprint: 'c', by: 'e', reason: '  ', source: 'command' })).rejects.toThrow(/reason/);
  });

  it('a dismissal stored for one head is applied by the pipeline on the next push', async () => {
    const repo = prRepo({ 'k.txt': 'k\n' }, { 'a.txt': 'BAD\n' });
    const first = await gate(repo, [badGuard], { guardThreads: false });
    expect(first.decision.conclusion).toBe('failure');
    const f = first.findings[0]!;
    const entry = { repo: 'acme/flow', pr: 1, fingerprint: f.id, category: f.category, path: f.path! };
    await store.dismissFinding({ ...entry, by: 'maint', reason: 'on purpose', source: 'command' });
    repo.write({ 'b.txt': 'ok\n' }).commit('push 2');
    const second = await gate(repo, [badGuard], { guardThreads: false, dismissals: { prior: await store.listDismissals('acme/flow', 1) } });
    expect(second.findings[0]!.dismissed).toMatchObject({ by: 'maint', reason: 'on purpose', source: 'command' });
    expect(second.decision.conclusion).toBe('success');
  });
});
