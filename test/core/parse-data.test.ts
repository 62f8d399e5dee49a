import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DataShapeError, jsonObject, parseJsonAs, shapedAs } from '../../src/core/parse-data.js';
import { parseJestJson } from '../../src/testgate/runners/node-results.js';
import { parseJunitXml } from '../../src/testgate/runners/junit-xml.js';

const holder = z.object({ pid: z.number().int().positive(), host: z.string() });

describe('zod at the I/O boundaries (core/parse-data.ts)', () => {
  it('returns the typed value for good input', () => {
    expect(parseJsonAs(holder, '{"pid": 7, "host": "h", "extra": 1}', 'the lock file')).toEqual({ pid: 7, host: 'h' });
  });

  it('names what was read and where it is wrong', () => {
    expect(() => parseJsonAs(holder, '{"pid": "7"}', 'the lock file')).toThrow(DataShapeError);
    expect(() => parseJsonAs(holder, '{"pid": "7"}', 'the lock file')).toThrow(
      /^the lock file does not have the expected shape \(at pid: .*number.*; at host: /,
    );
    expect(() => parseJsonAs(holder, '{"pid": 7,', 'the lock file')).toThrow(/^the lock file is not valid JSON \(/);
    expect(() => shapedAs(jsonObject, [1, 2], 'package.json')).toThrow(
      /^package\.json does not have the expected shape \(at the top level: /,
    );
  });

  it('reads a jest report whose absent fields are null, as jest writes them', () => {
    const json = JSON.stringify({
      testResults: [
        {
          name: '/w/a.test.js',
          status: 'passed',
          message: '',
          failureMessage: null,
          assertionResults: [{ ancestorTitles: ['a'], title: 'b', status: 'passed', failureMessages: [], location: null }],
        },
      ],
    });
    expect(parseJestJson(json, '/w').tests.map((t) => [t.id, t.status])).toEqual([['js:a.test.js > a > b', 'passed']]);
  });

  it('reads JUnit elements without attributes (`<failure/>`, a bare `<testcase/>`) as before', () => {
    const xml = '<testsuite><testcase classname="c" name="n"><failure/></testcase><testcase/></testsuite>';
    expect(parseJunitXml(xml).map((c) => [c.name, c.status])).toEqual([
      ['n', 'failed'],
      ['', 'passed'],
    ]);
  });
});
