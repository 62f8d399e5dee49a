import { posix } from 'node:path';
import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import type { LangId } from '../../repo/languages.js';
import { goMisses, rustMisses } from './collection-go-rust.js';
import { jsCollection, jsMisses } from './collection-js.js';
import { ciPytestPaths, pytestCollection, pytestMisses } from './collection-python.js';
import type { TestCase } from '../shared/test-bodies.js';
import type { G15NeverRunsEvidence } from './evidence.js';

const FIXTURE_DIR = /(^|\/)(?:fixtures?|__fixtures__|testdata|test-data|examples?|samples?)\//i;

/** A handler that catches every error and only reports it (`except Exception as e: print(e)`, `catch (e) { console.log(e) }`). */
const CATCH_ALL_PRINT =
  /^\s*except\s*(?:\(?[\w\s,.]*\b(?:Exception|BaseException)\b[^:\n]*)?:\s*\n\s*(?:print|logging\.\w+|traceback\.print_exc|pass\b)|\bcatch\s*(?:\(\s*\w*\s*\))?\s*\{\s*(?:console\.\w+\s*\(|\})/m;

/** Python file names that say "test" whatever the configured pattern (`test_x.py`, `x_test.py`, `x_tests.py`, `tests_x.py`). */
const PY_TEST_NAME = /^tests?_.*\.py$|_tests?\.py$/;

/** Why the runner the base configures never runs this test file, with the line to point at; null when it does or when not sure. */
async function whyNever(
  file: ChangedFile,
  ctx: GuardContext,
  lang: LangId,
  cases: TestCase[],
): Promise<{ why: string; line: number } | null> {
  const text = file.head.text ?? '';
  switch (lang) {
    case 'python': {
      if (cases.length === 0 && !PY_TEST_NAME.test(posix.basename(file.path))) return null;
      const [config, ci] = await Promise.all([pytestCollection(ctx, file.path), ciPytestPaths(ctx)]);
      // Paths on the CI's command line replace testpaths; with them the runner is pytest for sure.
      const c = ci
        ? { testpaths: ci.paths, pythonFiles: config?.pythonFiles ?? ['test_*.py', '*_test.py'], source: ci.source, fromCi: true }
        : config;
      const why = c ? pytestMisses(c, file.path) : null;
      return why ? { why, line: 1 } : null;
    }
    case 'javascript':
    case 'typescript':
    case 'tsx': {
      if (cases.length === 0) return null;
      const c = await jsCollection(ctx, file.path);
      const why = c ? jsMisses(c, file.path) : null;
      return why ? { why, line: 1 } : null;
    }
    case 'go':
      return goMisses(file.path, text);
    case 'rust': {
      const why = await rustMisses(ctx, file.path, text);
      return why ? { why, line: 1 } : null;
    }
    default:
      return null;
  }
}

/**
 * A test file the PR adds that the configured runner never collects (`dead-code`, risk): its tests
 * pass no matter what, because they never run. Decided from the base's runner configuration, and
 * only where the collection rules can be read for sure (`collection-*.ts`).
 */
export async function neverRuns(file: ChangedFile, ctx: GuardContext, lang: LangId, cases: TestCase[]): Promise<GuardFinding | null> {
  if (file.status !== 'added' && file.status !== 'copied') return null;
  // Fixtures and examples are run by other tests or by hand, on purpose outside the suite.
  if (FIXTURE_DIR.test(file.path)) return null;
  const found = await whyNever(file, ctx, lang, cases);
  if (!found) return null;
  const text = file.head.text ?? '';
  const swallows = cases.some((c) => c.swallowed) || CATCH_ALL_PRINT.test(text);
  return {
    category: 'dead-code',
    severity: 'risk',
    path: file.path,
    line: found.line,
    message: `This test file never runs: ${found.why}. Its tests cannot fail, whatever the code does${swallows ? ', and it catches every error and only prints it, so even run by hand it would not fail' : ''}.`,
    remediation: `Move the file where the test runner looks (or name it as the runner expects), or delete it if it was a scratch script.`,
    evidence: { neverRuns: true, why: found.why } satisfies G15NeverRunsEvidence,
  };
}
