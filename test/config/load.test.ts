import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../src/config/load.js';

function configError(text: string, file: string): ConfigError {
  try {
    parseConfigText(text, file);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('config loading', () => {
  it('fills every default from an empty file', () => {
    const c = parseConfigText('', '.github/slopgate.yml');
    expect(c.maxRounds).toBe(3);
    expect(c.psi.threshold).toBe(0.5);
    expect(c.comments.budget).toBe(25);
    expect(c.links.online).toBe(false);
  });

  it('reads YAML and TOML', () => {
    expect(parseConfigText('strict: true\nguards:\n  disable: [G11]\n', 'x.yml')).toMatchObject({
      strict: true,
      guards: { disable: ['G11'] },
    });
    expect(parseConfigText('strict = true\n[psi]\nthreshold = 0.7\n', 'x.toml')).toMatchObject({ strict: true, psi: { threshold: 0.7 } });
  });

  it('names the line of an unknown (misspelled) key instead of silently using defaults', () => {
    const err = configError('strict: true\nguards:\n  disabel: [G11]\n', '.github/slopgate.yml');
    expect(err.file).toBe('.github/slopgate.yml');
    expect(err.line).toBe(3);
    expect(err.detail).toMatch(/disabel/);
  });

  it('names the line and the expected type of a wrong value', () => {
    const err = configError('psi:\n  threshold: high\n', '.github/slopgate.yml');
    expect(err.line).toBe(2);
    expect(err.detail).toMatch(/psi\.threshold/);
    expect(err.detail).toMatch(/number/);
  });

  it('reports YAML syntax errors with line and column', () => {
    const err = configError('strict: true\nguards:\n  disable: [G11\n', '.github/slopgate.yml');
    expect(err.line).toBeGreaterThanOrEqual(2);
    expect(err.detail).toMatch(/invalid YAML/);
  });

  it('reports TOML syntax errors with their line', () => {
    const err = configError('strict = true\nmaxRounds = three\n', '.github/slopgate.toml');
    expect(err.line).toBe(2);
    expect(err.detail).toMatch(/invalid TOML/);
  });

  it('locates a schema error in TOML on the key line', () => {
    const err = configError('[tests]\nreruns = 99\n', '.github/slopgate.toml');
    expect(err.line).toBe(2);
    expect(err.detail).toMatch(/tests\.reruns/);
  });

  // Issue 32: four mistakes take one run to find, not four commit-and-run cycles.
  it('reports every schema problem of a YAML file at once, each with its line and column, in file order', () => {
    const text = 'strict: yes please\nguards:\n  disabel: [G11]\npsi:\n  threshold: high\ncomments:\n  budget: 500\n';
    const err = configError(text, '.github/slopgate.yml');
    expect(err.problems.map((p) => [p.line, p.column, p.detail.split(':')[0]])).toEqual([
      [1, 9, 'strict'],
      [3, 3, 'guards.disabel'],
      [5, 14, 'psi.threshold'],
      [7, 11, 'comments.budget'],
    ]);
    expect(err.message.split('\n')).toEqual([
      '.github/slopgate.yml: 4 problems:',
      expect.stringMatching(/^ {2}\.github\/slopgate\.yml:1:9: strict: .*boolean/),
      '  .github/slopgate.yml:3:3: guards.disabel: unknown key',
      expect.stringMatching(/^ {2}\.github\/slopgate\.yml:5:14: psi\.threshold: .*number/),
      expect.stringMatching(/^ {2}\.github\/slopgate\.yml:7:11: comments\.budget: .*100/),
    ]);
    expect(err.hint).toContain('slopgate schema --format markdown');
  });

  it('reports every schema problem of a TOML file at once, each on its key (tables and dotted keys followed)', () => {
    const text = 'strict = "yes"\nguards.disabel = ["G11"]\n[psi]\nthreshold = "high"\n\n[comments]\n  budget = 500\n  ["tests"]\n';
    const err = configError(text, '.github/slopgate.toml');
    expect(err.problems.map((p) => [p.line, p.column, p.detail.split(':')[0]])).toEqual([
      [1, 1, 'strict'],
      [2, 1, 'guards.disabel'],
      [4, 1, 'psi.threshold'],
      [7, 3, 'comments.budget'],
    ]);
  });

  it('two unknown keys in one mapping are two problems, each on its own line', () => {
    const err = configError('guards:\n  disabel: [G11]\n  timeoutMS: 5\n', 'x.yml');
    expect(err.problems.map((p) => [p.line, p.column, p.detail])).toEqual([
      [2, 3, 'guards.disabel: unknown key'],
      [3, 3, 'guards.timeoutMS: unknown key'],
    ]);
  });

  it('rejects a top-level list', () => {
    expect(configError('- a\n- b\n', 'x.yml').detail).toMatch(/mapping/);
  });
});
