import { describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../src/core/finding.js';
import { compareFindings, MalformedReportError, mergeFindings, type SourceReport } from '../../src/routing/merge.js';

const raw = (over: Record<string, unknown> = {}) => ({
  category: 'toplevel-dropped',
  severity: 'fail',
  path: 'src/app.py',
  line: 10,
  message: 'def load_config was removed',
  remediation: 'Restore load_config or remove its callers.',
  ...over,
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof MalformedReportError ? err.code : `other:${(err as Error).name}`;
  }
  return undefined;
}

describe('routing/merge: fingerprint dedup (the more severe wins, else the first; confirmedBy grows)', () => {
  it('two guards reporting the same problem become one finding confirmed by both, keeping the first one’s severity and text', () => {
    const merged = mergeFindings([
      { source: 'G7', findings: [raw({ message: 'first wording' })] },
      { source: 'qa', findings: [raw({ severity: 'nit', message: 'second wording' })] },
    ]);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.confirmedBy).toEqual(['G7', 'qa']);
    expect(merged[0]!.severity).toBe('fail');
    expect(merged[0]!.message).toBe('first wording');
    expect(merged[0]!.guard).toBe('G7');
  });

  it('a later, more severe finding with the same fingerprint wins with its text; evidence of both is kept', () => {
    const merged = mergeFindings([
      {
        source: 'G15',
        findings: [raw({ category: 'tests-weakened', severity: 'risk', message: 'static', evidence: { test: 't', weakened: 'skip' } })],
      },
      {
        source: 'G8',
        findings: [
          raw({
            category: 'tests-weakened',
            severity: 'fail',
            message: 'static; its base version fails',
            evidence: { baseVersion: 'fails' },
          }),
        ],
      },
    ]);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({
      severity: 'fail',
      guard: 'G8',
      message: 'static; its base version fails',
      confirmedBy: ['G8', 'G15'],
    });
    expect(merged[0]!.evidence).toEqual({ test: 't', weakened: 'skip', baseVersion: 'fails' });
    const tie = mergeFindings([
      { source: 'G15', findings: [raw({ severity: 'risk', message: 'first', evidence: { a: 1 } })] },
      { source: 'G8', findings: [raw({ severity: 'risk', message: 'second', evidence: { a: 2, b: 3 } })] },
    ]);
    expect(tie[0]).toMatchObject({ message: 'first', guard: 'G15', confirmedBy: ['G15', 'G8'], evidence: { a: 1, b: 3 } });
  });

  it('the fingerprint ignores case and whitespace in path and remediation, but not the line', () => {
    const merged = mergeFindings([
      { source: 'G7', findings: [raw()] },
      { source: 'qa', findings: [raw({ path: 'SRC/app.py', remediation: '  restore   LOAD_CONFIG or remove its callers. ' })] },
      { source: 'G4', findings: [raw({ line: 11 })] },
    ]);
    expect(merged).toHaveLength(2);
    expect(merged.find((f) => f.line === 10)!.confirmedBy).toEqual(['G7', 'qa']);
  });

  it('only the first 80 characters of the remediation count, so a longer tail still merges', () => {
    const base = 'x'.repeat(80);
    const merged = mergeFindings([
      { source: 'a', findings: [raw({ remediation: `${base} tail one` })] },
      { source: 'b', findings: [raw({ remediation: `${base} a different tail` })] },
    ]);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.id).toBe(fingerprintOf({ category: 'toplevel-dropped', path: 'src/app.py', line: 10, remediation: base }));
  });

  it('a duplicate from the same source changes nothing (no double confirmation)', () => {
    const merged = mergeFindings([{ source: 'G7', findings: [raw(), raw({ message: 'again' })] }]);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.confirmedBy).toEqual(['G7']);
    expect(merged[0]!.message).toBe('def load_config was removed');
  });

  it('no path and no line are distinct from path "-" (different fingerprint parts)', () => {
    const merged = mergeFindings([
      { source: 'qa', findings: [raw({ path: undefined, line: undefined }), raw({ path: '-', line: undefined })] },
    ]);
    expect(merged).toHaveLength(2);
  });
});

describe('routing/merge: sort order', () => {
  it('more confirmations first, then fail < risk < nit (the intended order, not the original’s rank||3 quirk), then category', () => {
    const merged = mergeFindings([
      {
        source: 'G1',
        findings: [
          raw({ category: 'style', severity: 'nit', path: 'a' }),
          raw({ category: 'dead-link', severity: 'risk', path: 'b' }),
          raw({ category: 'toplevel-dropped', severity: 'fail', path: 'c' }),
          raw({ category: 'doc-destroyed', severity: 'fail', path: 'd' }),
          raw({ category: 'schema-invalid', severity: 'nit', path: 'e' }),
        ],
      },
      { source: 'qa', findings: [raw({ category: 'style', severity: 'nit', path: 'a' })] },
    ]);
    expect(merged.map((f) => `${f.confirmedBy.length}:${f.severity}:${f.category}`)).toEqual([
      '2:nit:style',
      '1:fail:doc-destroyed',
      '1:fail:toplevel-dropped',
      '1:risk:dead-link',
      '1:nit:schema-invalid',
    ]);
  });

  it('the comparator is a total order: sorting is independent of input order', () => {
    const findings = [
      raw({ category: 'dead-link', severity: 'risk', path: 'b', line: 2 }),
      raw({ category: 'dead-link', severity: 'risk', path: 'b', line: 1 }),
      raw({ category: 'dead-link', severity: 'risk', path: 'a', line: 9 }),
    ];
    const one = mergeFindings([{ source: 's', findings }]).map((f) => f.id);
    const two = mergeFindings([{ source: 's', findings: [...findings].reverse() }]).map((f) => f.id);
    expect(one).toEqual(two);
    const sorted = mergeFindings([{ source: 's', findings }]);
    for (let i = 1; i < sorted.length; i++) expect(compareFindings(sorted[i - 1]!, sorted[i]!)).toBeLessThanOrEqual(0);
  });
});

describe('routing/merge: unknown categories are kept and routed to stuck (fail-closed)', () => {
  it.each(['made-up', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 42, null, undefined])(
    'category %s becomes a critic-error that fails, with a remediation naming it',
    (category) => {
      const [f] = mergeFindings([{ source: 'qa', findings: [raw({ category, severity: 'nit' })] }]);
      expect(f!.category).toBe('critic-error');
      expect(f!.severity).toBe('fail');
      const shown = typeof category === 'string' ? category : 'unknown';
      expect(f!.remediation).toContain(`"${shown}"`);
      expect(f!.evidence?.unknownCategory).toBe(shown);
    },
  );

  it('a finding parsed from JSON with an own "__proto__" key does not pollute prototypes or pick up a category', () => {
    const hostile = JSON.parse('{"__proto__": {"category": "style", "polluted": true}, "message": "m", "remediation": "r"}');
    const [f] = mergeFindings([{ source: 'qa', findings: [hostile] }]);
    expect(f!.category).toBe('critic-error');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('an invalid severity on a known category is treated as fail, never silently advisory', () => {
    const [f] = mergeFindings([{ source: 'qa', findings: [raw({ category: 'style', severity: 'BLOCKER' })] }]);
    expect(f!.severity).toBe('fail');
  });
});

describe('routing/merge: malformed input is an error, never an empty PASS', () => {
  it.each([
    ['null', null],
    ['a string such as "BLOCKER: …"', 'BLOCKER: the config is broken'],
    ['an array', [raw()]],
    ['a number', 7],
  ])('a finding that is %s throws malformed-finding with its index', (_label, bad) => {
    let error: unknown;
    try {
      mergeFindings([{ source: 'qa', findings: [raw(), bad] }]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(MalformedReportError);
    expect((error as MalformedReportError).code).toBe('malformed-finding');
    expect((error as Error).message).toContain('#1');
  });

  it('a report that is not an object with a source, or whose findings is not an array, throws', () => {
    expect(codeOf(() => mergeFindings([null as unknown as SourceReport]))).toBe('report-not-an-object');
    expect(codeOf(() => mergeFindings([{ findings: [] } as unknown as SourceReport]))).toBe('report-not-an-object');
    expect(codeOf(() => mergeFindings([{ source: 'qa', findings: 'none' } as unknown as SourceReport]))).toBe('report-no-findings');
    expect(codeOf(() => mergeFindings([{ source: 'qa' } as unknown as SourceReport]))).toBe('report-no-findings');
  });

  it('the list of reports itself must be an array (a string or object is a TypeError, not a partial merge)', () => {
    expect(codeOf(() => mergeFindings('qa' as unknown as SourceReport[]))).toBe('other:TypeError');
    expect(codeOf(() => mergeFindings({} as unknown as SourceReport[]))).toBe('other:TypeError');
  });

  it('validation is fail-closed across reports: a bad second report rejects the whole merge', () => {
    expect(
      codeOf(() =>
        mergeFindings([
          { source: 'G7', findings: [raw()] },
          { source: 'qa', findings: [undefined] },
        ]),
      ),
    ).toBe('malformed-finding');
  });
});

describe('routing/merge: field hygiene', () => {
  it('drops a non-positive or fractional line, and an end line that is not a whole number at or after the line', () => {
    const merged = mergeFindings([
      {
        source: 'G2',
        findings: [
          raw({ path: 'a', line: 0, endLine: 5 }),
          raw({ path: 'b', line: 2.5 }),
          raw({ path: 'c', line: 4, endLine: Number.NaN }),
          raw({ path: 'd', line: 4, endLine: 3 }),
          raw({ path: 'e', line: 4, endLine: 6 }),
        ],
      },
    ]);
    const by = (p: string) => merged.find((f) => f.path === p)!;
    expect(by('a').line).toBeUndefined();
    expect(by('a').endLine).toBeUndefined();
    expect(by('b').line).toBeUndefined();
    expect(by('c').endLine).toBeUndefined();
    expect(by('d').endLine).toBeUndefined();
    expect(by('e').endLine).toBe(6);
  });

  it('keeps a well-formed suggestion and drops one a reporter could not apply', () => {
    const good = { path: 'a.py', startLine: 3, endLine: 4, replacement: 'x = 1\n' };
    const merged = mergeFindings([
      {
        source: 'G7',
        findings: [
          raw({ path: 'a.py', suggestion: good }),
          raw({ path: 'b.py', suggestion: { path: 'b.py', startLine: 'one', endLine: 2, replacement: 'y' } }),
          raw({ path: 'c.py', suggestion: { path: 'c.py', startLine: 5, endLine: 4, replacement: 'y' } }),
          raw({ path: 'd.py', suggestion: { path: 'd.py', startLine: 1, endLine: 1 } }),
        ],
      },
    ]);
    expect(merged.find((f) => f.path === 'a.py')!.suggestion).toEqual(good);
    for (const p of ['b.py', 'c.py', 'd.py']) expect(merged.find((f) => f.path === p)!.suggestion).toBeUndefined();
  });
});
