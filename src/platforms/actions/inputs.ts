import { InputError } from '../../core/errors.js';
import { parseFailLevel, type FailLevel } from '../../routing/fail-level.js';

/** The Action's inputs (action.yml), as the runner hands them over: `INPUT_<NAME>` variables. */
export interface ActionInputs {
  /** Config path on the base branch; empty: the App's lookup (.github/slopgate.yml, .yaml, .toml). */
  config: string;
  failLevel: FailLevel;
  tests: boolean;
  /** `true` makes risk findings blocking; `false` keeps what the config says. */
  strict: boolean;
  /** Overrides `comments.budget` of the config when set. */
  commentBudget?: number;
  token: string;
  /** Where to write a SARIF file (relative to the workspace); empty: none. */
  sarifFile?: string;
}

/**
 * The variables an input can arrive in. A JavaScript action's runner keeps hyphens and upper-cases the
 * rest (`fail-level` is `INPUT_FAIL-LEVEL`); action.yml's composite steps pass them on themselves, with
 * underscores (`INPUT_FAIL_LEVEL`), as a shell can name them.
 */
function inputVariables(name: string): string[] {
  const upper = `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
  const underscored = upper.replace(/-/g, '_');
  return underscored === upper ? [upper] : [upper, underscored];
}

export function input(env: NodeJS.ProcessEnv, name: string): string {
  for (const v of inputVariables(name)) {
    const value = env[v]?.trim();
    if (value) return value;
  }
  return '';
}

/** A YAML 1.2 core-schema boolean, as `core.getBooleanInput` accepts it; empty is the default. */
export function booleanInput(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = input(env, name);
  if (!raw) return fallback;
  if (['true', 'True', 'TRUE'].includes(raw)) return true;
  if (['false', 'False', 'FALSE'].includes(raw)) return false;
  throw new InputError(`input ${name}: '${raw}' is not a boolean`, 'use true or false');
}

export function readInputs(env: NodeJS.ProcessEnv): ActionInputs {
  const budgetText = input(env, 'comment-budget');
  let commentBudget: number | undefined;
  if (budgetText) {
    commentBudget = Number(budgetText);
    if (!Number.isInteger(commentBudget) || commentBudget < 0 || commentBudget > 100) {
      throw new InputError(`input comment-budget: '${budgetText}' is not a whole number from 0 to 100`);
    }
  }
  let failLevel: FailLevel;
  try {
    failLevel = parseFailLevel(input(env, 'fail-level') || 'fail');
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    throw new InputError(`input fail-level: ${err.message}`, err.hint);
  }
  const token = input(env, 'github-token') || (env.GITHUB_TOKEN ?? '').trim();
  if (!token)
    throw new InputError(
      'no token: input github-token is empty',
      'leave github-token at its default (${{ github.token }}) or pass a token',
    );
  const sarifFile = input(env, 'sarif-file');
  return {
    config: input(env, 'config'),
    failLevel,
    tests: booleanInput(env, 'tests', true),
    strict: booleanInput(env, 'strict', false),
    ...(commentBudget !== undefined ? { commentBudget } : {}),
    token,
    ...(sarifFile ? { sarifFile } : {}),
  };
}

/** The inputs a PR's workflow cannot choose for itself: read from the base branch's step, where a maintainer wrote them. */
const GATE_INPUTS = ['config', 'fail-level', 'tests', 'strict', 'comment-budget'];

/**
 * The inputs of a run whose workflow the PR changed: the slopgate step's `with:` as the base branch has
 * it (undefined: the defaults), never the PR's. The token and the SARIF path stay as given; a base value
 * that is an expression (`${{ … }}`) cannot be evaluated here and falls back to the default.
 */
export function trustedInputs(env: NodeJS.ProcessEnv, baseWith: Record<string, string> | undefined): ActionInputs {
  const trusted: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(env).filter(([k]) => !GATE_INPUTS.some((name) => inputVariables(name).includes(k))),
  );
  for (const name of GATE_INPUTS) {
    const value = baseWith?.[name];
    if (value !== undefined && !value.includes('${{')) trusted[`INPUT_${name.toUpperCase()}`] = value;
  }
  return readInputs(trusted);
}
