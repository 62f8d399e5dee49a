import { randomUUID } from 'node:crypto';

/**
 * One id per `vitest run`, inherited by every test file's process: suites that need the built App
 * (test/e2e/harness/app-process.ts `buildApp`) build dist/ once per run under it instead of once per file.
 */
export default function setup(): void {
  process.env.SLOPGATE_TEST_RUN ??= randomUUID();
}
