import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { removeTestRepos } from './helpers/git-repo.js';

// Guards run in this thread under test unless a test asks for guard threads (`guardThreads: true`):
// vi.mock does not reach a worker thread, and each test file would pay for a thread that loads tsx.
// test/core/guard-budget.test.ts runs the registry in threads and checks it finds the same.
process.env.SLOPGATE_GUARD_THREADS ??= '0';

// The CLI keeps test baselines in files when it has no store: one folder per test file, never the user's cache.
const baselines = mkdtempSync(join(tmpdir(), 'slopgate-test-baselines-'));
process.env.SLOPGATE_BASELINE_CACHE_DIR ??= baselines;

afterAll(() => {
  removeTestRepos();
  rmSync(baselines, { recursive: true, force: true });
});
