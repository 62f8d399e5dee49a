import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: the machine is shared and slow, and no test may depend on its speed (a hang still fails).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
  },
});
