import { afterAll } from 'vitest';
import { removeTestRepos } from './helpers/git-repo.js';

afterAll(() => removeTestRepos());
