import { afterAll } from 'vitest';
import { removeTestRepos } from './helpers/git-repo.js';

// Guards run in this thread under test unless a test asks for guard threads (`guardThreads: true`):
// vi.mock does not reach a worker thread, and each test file would pay for a thread that loads tsx.
// test/core/guard-budget.test.ts runs the registry in threads and checks it finds the same.
process.env.SLOPGATE_GUARD_THREADS ??= '0';

afterAll(() => removeTestRepos());
