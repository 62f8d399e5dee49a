import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/core/errors.js';
import { readInputs, trustedInputs } from '../../../src/platforms/actions/inputs.js';

const base = { 'INPUT_GITHUB-TOKEN': 'ghs_x' };

describe('Action inputs', () => {
  it('reads hyphenated inputs the way the runner passes them, with the defaults', () => {
    expect(readInputs({ ...base })).toEqual({ config: '', failLevel: 'fail', tests: true, strict: false, token: 'ghs_x' });
    const all = readInputs({
      ...base,
      INPUT_CONFIG: '.github/gate.yml',
      'INPUT_FAIL-LEVEL': 'Risk',
      INPUT_TESTS: 'false',
      INPUT_STRICT: 'TRUE',
      'INPUT_COMMENT-BUDGET': '5',
      'INPUT_SARIF-FILE': 'out.sarif',
    });
    expect(all).toEqual({
      config: '.github/gate.yml',
      failLevel: 'risk',
      tests: false,
      strict: true,
      commentBudget: 5,
      token: 'ghs_x',
      sarifFile: 'out.sarif',
    });
  });

  it('rejects wrong values with an input error that names the input', () => {
    expect(() => readInputs({ ...base, 'INPUT_FAIL-LEVEL': 'warn' })).toThrow(/fail-level: unknown fail level 'warn'/);
    expect(() => readInputs({ ...base, INPUT_TESTS: 'yes' })).toThrow(InputError);
    expect(() => readInputs({ ...base, 'INPUT_COMMENT-BUDGET': '2.5' })).toThrow(/comment-budget/);
    expect(() => readInputs({ 'INPUT_GITHUB-TOKEN': '' })).toThrow(/no token/);
  });

  it('falls back to GITHUB_TOKEN when the input is empty', () => {
    expect(readInputs({ GITHUB_TOKEN: 'ghs_env' }).token).toBe('ghs_env');
  });

  it("reads the underscored names action.yml's composite steps pass, and a PR's values under either name are replaced", () => {
    const env = {
      INPUT_GITHUB_TOKEN: 'ghs_y',
      INPUT_FAIL_LEVEL: 'none',
      INPUT_TESTS: 'false',
      INPUT_COMMENT_BUDGET: '3',
      INPUT_SARIF_FILE: 'x.sarif',
    };
    expect(readInputs(env)).toEqual({
      config: '',
      failLevel: 'none',
      tests: false,
      strict: false,
      commentBudget: 3,
      token: 'ghs_y',
      sarifFile: 'x.sarif',
    });
    // the base's step says nothing: the defaults, never the PR's none/false/3
    expect(trustedInputs(env, {})).toEqual({
      config: '',
      failLevel: 'fail',
      tests: true,
      strict: false,
      token: 'ghs_y',
      sarifFile: 'x.sarif',
    });
    expect(trustedInputs({ ...env, 'INPUT_FAIL-LEVEL': 'none' }, { 'fail-level': 'risk' }).failLevel).toBe('risk');
  });
});
