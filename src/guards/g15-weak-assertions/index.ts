import type { Guard, GuardContext, GuardFinding } from '../../core/guard.js';
import { isAddedLine, type ChangedFile } from '../../core/patch-set.js';
import { languageOf, type LangId } from '../../repo/languages.js';
import { isSkippedPath } from '../../repo/manifests/index.js';
import { isTestPath } from '../shared/test-paths.js';
import { testWeakenings, weakenableFile, weakeningFinding } from '../shared/test-weakening.js';
import { neverRuns } from './never-runs.js';
import { namedFunctions, testCases, type TestCase } from '../shared/test-bodies.js';
import { G15_EVIDENCE, type G15MoreTestsEvidence, type G15NoAssertEvidence, type G15SwallowedEvidence } from './evidence.js';

/**
 * G15: tests this PR adds (or whose body it rewrites) that assert nothing, and existing tests it
 * weakens (a skip added, assertions deleted: `tests-weakened`, see ../shared/test-weakening.ts). A test whose body is
 * `pass`, or that never asserts, expects, checks a mock or fails the test, passes whatever the code
 * does: it is the typical filler of a generated test file. Static, so it works with tests disabled.
 */

/** What counts as checking something, per language (a call of a helper named assert*, check*, verify*, expect* included). */
const HELPER = /(?<![\w$])_*(?:assert|check|verify|expect|ensure|validate)\w*\s*(?:<[^;()]*>\s*)?[!(]/i;
const CHECKS: Partial<Record<LangId, RegExp[]>> = {
  python: [
    /\bassert\b/,
    /\braises\s*\(/,
    /\bwarns\s*\(/,
    /\bself\.(?:assert\w*|fail\w*)\s*\(/,
    /\.assert_\w+\s*\(/,
    /\bpytest\.fail\b/,
    /\braise\s+AssertionError\b/,
    /\bdeprecated_call\s*\(/,
  ],
  // `satisfies` and `@ts-expect-error` are type-level checks (type tests run under tsc or vitest --typecheck)
  javascript: [
    /\bexpect\w*\s*[(.<]/,
    /\bsatisfies\b/,
    /\bassert\w*\b/,
    /\.should\b/,
    /\bt\.(?:is|not|true|false|truthy|falsy|deepEqual|notDeepEqual|like|throws\w*|notThrows\w*|regex|snapshot|pass|fail|assert|plan)\s*\(/,
    /\bsinon\.assert\b/,
    /\.verify\s*\(/,
    /\bthrow\s+new\s+(?:Assertion)?Error\b/,
  ],
  go: [
    /\.\s*(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(/,
    /\b(?:assert|require)\s*\.\s*\w+\s*\(/,
    /\.\s*(?:Require|Assert)\s*\(\s*\)/,
    /\bpanic\s*\(/,
  ],
  rust: [
    /\b\w*assert\w*!/,
    /\bpanic!/,
    /\bunreachable!/,
    /\btodo!/,
    /\.unwrap(?:_err)?\s*\(/,
    /\.expect(?:_err)?\s*\(/,
    /\?\s*[;)}\s]/,
    /\bprop_assert/,
  ],
};
CHECKS.typescript = CHECKS.javascript;
CHECKS.tsx = CHECKS.javascript;

/** Comments and string contents removed, so an `assert` in a comment or a message does not count. */
function code(body: string, lang: LangId): string {
  let s = body.replace(/\/\*[\s\S]*?\*\//g, ' ');
  s = lang === 'python' ? s.replace(/#[^\n]*/g, ' ') : s.replace(/(^|[^:])\/\/[^\n]*/g, '$1 ');
  return s.replace(/("""|''')[\s\S]*?\1/g, '""').replace(/"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, '""');
}

function bodyChecks(raw: string, lang: LangId, helpers: ReadonlySet<string>, tParam?: string): boolean {
  if ((lang === 'typescript' || lang === 'tsx') && /@ts-expect-error\b/.test(raw)) return true;
  const body = code(raw, lang);
  if ((CHECKS[lang] ?? []).some((re) => re.test(body)) || HELPER.test(body)) return true;
  // Go: a helper that receives the *testing.T can fail the test
  if (lang === 'go' && tParam && new RegExp(`\\(\\s*${tParam}\\s*[,)]`).test(body)) return true;
  for (const m of body.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)\s*(?:<[^;()]*>\s*)?\(/g)) if (helpers.has(m[1]!)) return true;
  return false;
}

/** `test` checks something: itself, or through a helper of `helpers` (functions of the file that check). */
export function assertsSomething(test: TestCase, lang: LangId, helpers: ReadonlySet<string> = new Set()): boolean {
  if (test.empty) return false;
  return bodyChecks(test.body, lang, helpers, test.tParam);
}

/** Functions of the file that check something themselves or through another such function (`differential(...)`). */
async function checkingHelpers(lang: LangId, text: string): Promise<Set<string>> {
  const functions = await namedFunctions(lang, text);
  const helpers = new Set<string>();
  for (let round = 0; round < 3; round++) {
    const before = helpers.size;
    for (const [name, body] of functions) if (!helpers.has(name) && bodyChecks(body, lang, helpers)) helpers.add(name);
    if (helpers.size === before) break;
  }
  return helpers;
}

function isTestFile(path: string, lang: LangId): boolean {
  return lang === 'rust' || isTestPath(path);
}

const MAX_PER_FILE = 10;

/** A Go file that declares test functions whatever its name (`func TestX(t *testing.T)`). */
const GO_TESTING_T = /func\s+Test\w*\s*\(\s*\w+\s+\*testing\.T\s*\)/;

/** A test whose checks all sit inside a try that catches everything and only prints or logs. */
function swallowedFinding(file: ChangedFile, t: TestCase, lang: LangId, helpers: ReadonlySet<string>, fresh: boolean): GuardFinding | null {
  const s = t.swallowed;
  if (!s || bodyChecks(s.outside, lang, helpers, t.tParam) || !bodyChecks(s.inside, lang, helpers, t.tParam)) return null;
  const raises = lang === 'python' ? 'a failing assert raises AssertionError' : 'a failing expect or assert throws';
  return {
    category: 'weak-assertion',
    severity: 'risk',
    path: file.path,
    line: t.line,
    message: `The test \`${t.name}\` ${fresh ? 'that this PR adds' : 'as this PR rewrites it'} runs its checks inside a \`try\` whose \`${s.handler}\` catches every exception and only prints or logs it: ${raises}, the handler swallows it, and the test passes whatever the code does.`,
    remediation: `Let the failure reach the runner: remove the try/${lang === 'python' ? 'except' : 'catch'} around the checks, or re-raise after logging.`,
    evidence: { test: t.name, swallowed: true } satisfies G15SwallowedEvidence,
  };
}

async function checkFile(file: ChangedFile, ctx: GuardContext): Promise<GuardFinding[]> {
  const weakenings = await testWeakenings(file);
  // A test that lost its assertions is one `tests-weakened` finding, not also a `weak-assertion` one.
  const lost = weakenings.filter((w) => w.how === 'assertions').map((w) => w.line);
  return [...weakenings.map((w) => weakeningFinding(w)), ...(await addedTestFindings(file, ctx, lost))];
}

async function addedTestFindings(file: ChangedFile, ctx: GuardContext, lostAsserts: number[]): Promise<GuardFinding[]> {
  const lang = languageOf(file.path);
  if (!lang || lang === 'java' || file.head.text === null) return [];
  const head = await testCases(lang, file.head.text);
  const never = await neverRuns(file, ctx, lang, head);
  if (never) return [never];
  if (head.length === 0) return [];
  const baseLang = languageOf(file.oldPath ?? file.path);
  const base = file.base.text !== null && baseLang === lang ? await testCases(lang, file.base.text) : [];
  const baseBodies = new Map(base.map((t) => [t.name, t.body.replace(/\s+/g, ' ')]));
  let helpers: Set<string> | null = null;
  const out: GuardFinding[] = [];
  /** The test of each finding in `out`, for the one finding that sums up those past the limit. */
  const testOf: string[] = [];
  for (const t of head) {
    if (t.exempt || lostAsserts.some((l) => l >= t.line && l <= t.endLine)) continue;
    const was = baseBodies.get(t.name);
    if (was !== undefined && was === t.body.replace(/\s+/g, ' ')) continue; // not the PR's test
    let touched = false;
    for (let l = t.line; l <= t.endLine && !touched; l++) touched = isAddedLine(file, l);
    if (!touched) continue;
    if (t.swallowed) {
      helpers ??= await checkingHelpers(lang, file.head.text);
      const swallowed = swallowedFinding(file, t, lang, helpers, was === undefined);
      if (swallowed) {
        out.push(swallowed);
        testOf.push(t.name);
        continue;
      }
    }
    if (assertsSomething(t, lang)) continue;
    helpers ??= await checkingHelpers(lang, file.head.text);
    if (assertsSomething(t, lang, helpers)) continue;
    out.push({
      category: 'weak-assertion',
      severity: 'risk',
      path: file.path,
      line: t.line,
      message: t.empty
        ? `The test \`${t.name}\` ${was === undefined ? 'that this PR adds' : 'as this PR rewrites it'} has an empty body: it passes whatever the code does.`
        : lang === 'go' && t.tParam && new RegExp(`if\\s+err\\s*!=\\s*nil\\s*\\{\\s*${t.tParam}\\.Logf?\\(`).test(t.body)
          ? `The test \`${t.name}\` ${was === undefined ? 'that this PR adds' : 'as this PR rewrites it'} logs its errors (\`if err != nil { ${t.tParam}.Log(err) }\`) and never fails: no ${t.tParam}.Error, ${t.tParam}.Fatal or assertion, so it passes whatever the code does.`
          : `The test \`${t.name}\` ${was === undefined ? 'that this PR adds' : 'as this PR rewrites it'} checks nothing: no assert, expect, expected exception, mock verification or test failure call, and no assert/check/verify helper. It passes as long as the code does not crash.`,
      remediation: `Make \`${t.name}\` assert the behaviour it is named after (the result, the raised error, the call made), or remove it.`,
      evidence: { test: t.name, empty: t.empty } satisfies G15NoAssertEvidence,
    });
    testOf.push(t.name);
  }
  if (out.length <= MAX_PER_FILE) return out;
  const rest = out.slice(MAX_PER_FILE - 1);
  const restTests = testOf.slice(MAX_PER_FILE - 1);
  return [
    ...out.slice(0, MAX_PER_FILE - 1),
    {
      category: 'weak-assertion',
      severity: 'risk',
      path: file.path,
      line: rest[0]!.line,
      message: `${rest.length} more tests in ${file.path} that this PR adds or rewrites check nothing: ${restTests
        .slice(0, 8)
        .map((name) => `\`${name}\``)
        .join(', ')}${rest.length > 8 ? ', …' : ''}.`,
      remediation: `Give each of these tests an assertion about the behaviour it is named after, or remove it.`,
      evidence: { tests: restTests } satisfies G15MoreTestsEvidence,
    },
  ];
}

export const g15: Guard = {
  id: 'G15',
  name: 'tests assert something, run, and stay enabled',
  evidence: G15_EVIDENCE,
  needs: { services: [] },
  appliesTo(file) {
    if (weakenableFile(file)) return true;
    const lang = languageOf(file.path);
    return (
      !!lang &&
      lang !== 'java' &&
      file.status !== 'deleted' &&
      file.head.text !== null &&
      !isSkippedPath(file.path) &&
      (isTestFile(file.path, lang) || (lang === 'go' && GO_TESTING_T.test(file.head.text)))
    );
  },
  checkFile(file, ctx) {
    return checkFile(file, ctx);
  },
};
