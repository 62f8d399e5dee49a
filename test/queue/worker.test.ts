import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { runWorker } from '../../src/queue/worker.js';
import { main } from '../../src/cli.js';

describe('slopgate worker', () => {
  it('refuses to start without a shared database, with a hint naming DATABASE_URL', async () => {
    const saved = process.env.DATABASE_URL;
    delete process.env.DATABASE_URL;
    try {
      const err = await runWorker({ handler: async () => undefined }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).hint).toContain('DATABASE_URL');
    } finally {
      if (saved !== undefined) process.env.DATABASE_URL = saved;
    }
  });

  it('refuses to start when no job handler was registered, instead of consuming jobs it cannot do', async () => {
    await expect(runWorker({ url: 'postgres://postgres@127.0.0.1:5432/test' })).rejects.toThrow(/no job handler/);
  });

  it('rejects a --concurrency that is not a positive integer', async () => {
    await expect(main(['worker', '--concurrency', '0'])).rejects.toThrow(/positive integer/);
  });
});
