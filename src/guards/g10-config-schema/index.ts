import type { ChangedFile } from '../../core/patch-set.js';
import type { Guard, GuardContext, GuardFinding } from '../../core/guard.js';
import { configProblems, type SchemaCheck } from './config-problems.js';
import { schemaTargetOf, type SchemaTarget } from './config-targets.js';
import { didYouMean } from './did-you-mean.js';
import { eslintFlatProblems, isEslintFlatConfig } from './eslint-flat.js';
import { messageFor, remediationFor, type Judged } from './messages.js';
import { formatPath, type SchemaProblem } from './schema-errors.js';
import { BUNDLED_SCHEMAS } from './schema-registry.js';
import { behaviourOf, type Behaviour } from './tool-behaviour.js';
import { newerTypeScript } from './typescript-version.js';
import { G10_EVIDENCE, type G10SchemaEvidence } from './evidence.js';

export { schemaProblems } from './config-problems.js';
export { schemaTargetOf, type SchemaTarget } from './config-targets.js';

/** A key rename on its own line (`check_untyped_calls = true` → `check_untyped_defs = true`), when certain. */
function renameSuggestion(file: ChangedFile, line: number, j: Judged): GuardFinding['suggestion'] | undefined {
  const key = j.problem.path.at(-1);
  const meant = j.meant;
  if (typeof key !== 'string' || !meant || !/^[\w.-]+$/.test(meant)) return undefined;
  const text = file.head.text?.split('\n')[line - 1];
  if (text === undefined) return undefined;
  const esc = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^(\\s*-?\\s*)(["']?)${esc}\\2(\\s*[=:])`).exec(text);
  if (!m) return undefined;
  return { path: file.path, startLine: line, endLine: line, replacement: text.replace(m[0], `${m[1]}${m[2]}${meant}${m[2]}${m[3]}`) };
}

function findingFor(file: ChangedFile, target: SchemaTarget, check: SchemaCheck, group: Judged[]): GuardFinding {
  const best = group[0]!;
  const line = check.lineOf(best.problem);
  const severity = best.behaviour.verdict === 'rejects' ? 'fail' : 'risk';
  const suggestion = renameSuggestion(file, line, best);
  return {
    category: 'schema-invalid',
    severity,
    path: file.path,
    line,
    message: messageFor(file.path, best, target, group.length - 1),
    remediation: remediationFor(file.path, best),
    ...(suggestion ? { suggestion } : {}),
    evidence: {
      schema: BUNDLED_SCHEMAS[target.schema],
      path: formatPath(best.problem.path),
      keyword: best.problem.keyword,
      expected: best.problem.expected,
      actual: best.problem.actual,
      tool: best.behaviour.row?.id ?? null,
      verdict: best.behaviour.verdict,
      ...(best.meant ? { didYouMean: best.meant } : {}),
      others: group.slice(1, 6).map((j) => formatPath(j.problem.path)),
    } satisfies G10SchemaEvidence,
  };
}

/**
 * Without the errors another branch of a `oneOf`/`anyOf` reports about the same place: a value
 * problem (missing key, type, enum) at a table that holds a better-ranked problem deeper down is the
 * same mistake seen from the branch the author did not mean (`[tool.pytest]` "requires ini_options"
 * next to `[tool.pytest] minversion = 6`). Unknown keys always stay: each is a mistake of its own.
 */
function alternativesDropped(problems: SchemaProblem[]): SchemaProblem[] {
  return problems.filter((p, i) => {
    if (p.keyword === 'additionalProperties') return true;
    const at = p.keyword === 'required' ? p.path.slice(0, -1) : p.path;
    return !problems.some((q, j) => j < i && q.path.length > at.length && at.every((seg, k) => String(seg) === String(q.path[k])));
  });
}

const isUnknownOption = (j: Judged) =>
  j.problem.keyword === 'additionalProperties' && (j.problem.path[0] === 'compilerOptions' || j.problem.path[0] === 'watchOptions');

function newerCompiler(b: Behaviour, theirs: string): Behaviour {
  return {
    ...b,
    verdict: 'warns',
    says: `the TypeScript compiler slopgate reads options with does not know it, but this repository declares typescript ${theirs}, which may (a newer tsc refuses only options it does not know)`,
  };
}

/** Schema problems of one config file the PR introduced, as at most one `fail` and one `risk` finding. */
async function checkSchema(file: ChangedFile, ctx: GuardContext): Promise<GuardFinding[]> {
  const target = schemaTargetOf(file.path);
  if (target === null || file.head.text === null) return []; // appliesTo already left these out
  const head = await configProblems(file.head.text, target);
  if (!head || head.problems.length === 0) return [];
  // Only problems this PR introduced: the same problem in the base version is not the author's doing.
  const baseText = file.base.text;
  const before = baseText !== null ? await configProblems(baseText, schemaTargetOf(file.oldPath ?? file.path) ?? target) : null;
  const known = new Set(before?.problems.map((p) => p.key) ?? []);
  const judged: Judged[] = alternativesDropped(head.problems.filter((p) => !known.has(p.key))).map((problem) => ({
    problem,
    behaviour: behaviourOf(target.schema, problem, head.data),
    meant: problem.keyword === 'additionalProperties' ? didYouMean(target.schema, problem) : undefined,
  }));
  // An option slopgate's TypeScript does not know may be new in the repository's newer TypeScript.
  if ((target.schema === 'tsconfig' || target.schema === 'jsconfig') && judged.some(isUnknownOption)) {
    const theirs = await newerTypeScript(ctx, file.path);
    if (theirs) for (const j of judged) if (isUnknownOption(j)) j.behaviour = newerCompiler(j.behaviour, theirs);
  }
  const fails = judged.filter((j) => j.behaviour.verdict === 'rejects');
  const risks = judged.filter((j) => j.behaviour.verdict !== 'rejects');
  const out: GuardFinding[] = [];
  if (fails.length) out.push(findingFor(file, target, head, fails));
  if (risks.length) out.push(findingFor(file, target, head, risks));
  return out;
}

export const g10: Guard = {
  id: 'G10',
  name: 'config schema',
  evidence: G10_EVIDENCE,
  needs: { services: [] },

  appliesTo: (file) =>
    file.status !== 'deleted' && file.head.text !== null && (schemaTargetOf(file.path) !== null || isEslintFlatConfig(file.path)),
  async checkFile(file: ChangedFile, ctx: GuardContext): Promise<GuardFinding[]> {
    if (isEslintFlatConfig(file.path)) return eslintFlatProblems(file);
    return checkSchema(file, ctx);
  },
};
