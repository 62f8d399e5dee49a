import { isAbsolute, relative } from 'node:path';
import { z } from 'zod';
import { optional, parseJsonAs } from '../../core/parse-data.js';
import { readCappedTextOr } from '../../core/safe-read.js';
import type { TestOutcome, UnitStatus } from '../../core/suite-result.js';
import { shortMessage } from './runner.js';

/**
 * Reads a results file a test run wrote: never through a symlink, never a FIFO or device, at most
 * 64 MiB. Null when it is missing or unsafe (the run then has no results, and the gate fails closed).
 */
export function readResultsFile(path: string): Promise<string | null> {
  return readCappedTextOr(path);
}

/** Stable JS test id: `js:<file> > <describe…> > <test>`. */
export function jsTestId(file: string, path: string[]): string {
  return ['js:' + file, ...path].join(' > ');
}

function relFile(workdir: string, file: string | undefined): string {
  if (!file) return '(unknown file)';
  const f = file.startsWith('file://') ? new URL(file).pathname : file;
  return isAbsolute(f) ? relative(workdir, f) : f;
}

/** One line of slopgate's `node --test` reporter (node-test-reporter.ts); undefined values it writes as null. */
const nodeLine = z.object({
  event: z.enum(['pass', 'fail', 'stderr', 'stdout']),
  name: optional(z.string()),
  nesting: optional(z.number()),
  ancestors: optional(z.array(z.string())),
  file: optional(z.string()),
  line: optional(z.number()),
  type: optional(z.string()),
  skip: optional(z.boolean()),
  failureType: optional(z.string()),
  message: optional(z.string()),
});
type NodeLine = z.infer<typeof nodeLine>;

/** Parses the JSON lines of slopgate's `node --test` reporter. */
export function parseNodeTestLines(text: string, workdir: string): { tests: TestOutcome[]; units: UnitStatus[] } {
  const tests = new Map<string, TestOutcome>();
  const units = new Map<string, UnitStatus>();
  const stderr = new Map<string, string>();
  const lines: NodeLine[] = [];
  for (const l of text.split('\n')) {
    if (!l.startsWith('{')) continue;
    try {
      lines.push(parseJsonAs(nodeLine, l, 'a line of the node --test reporter'));
    } catch {
      // a torn line, or one the tests printed themselves
    }
  }
  for (const l of lines) if (l.event === 'stderr' && l.file) stderr.set(l.file, (stderr.get(l.file) ?? '') + (l.message ?? ''));
  for (const l of lines) {
    if (l.event !== 'pass' && l.event !== 'fail') continue;
    if (l.type === 'suite') continue;
    const file = relFile(workdir, l.file);
    const unit = `js:${file}`;
    if (!units.has(unit)) units.set(unit, { id: unit, kind: 'file', group: unit, status: 'ok', file });
    // A whole file that failed as one "test" named after itself: it did not load (syntax error, …).
    if (l.nesting === 0 && l.file && (l.name === l.file || relFile(workdir, l.name) === file) && l.event === 'fail') {
      units.set(unit, {
        id: unit,
        kind: 'file',
        group: unit,
        status: 'broken',
        file,
        message: shortMessage(stderr.get(l.file) ?? l.message, 12) ?? 'the test file failed to load',
      });
      continue;
    }
    const id = jsTestId(file, [...(l.ancestors ?? []), l.name ?? '']);
    const status = l.skip ? 'skipped' : l.event === 'pass' ? 'passed' : 'failed';
    const t: TestOutcome = { id, status, unit, file };
    if (l.line) t.line = l.line;
    const msg = status === 'failed' ? shortMessage(l.message) : undefined;
    if (msg) t.message = msg;
    tests.set(id, t);
  }
  return { tests: [...tests.values()], units: [...units.values()] };
}

/** The JSON report of jest (`--json`) and vitest (`--reporter=json`): the fields read here (jest writes null for an absent one). */
const jestReport = z.object({
  testResults: optional(
    z.array(
      z.object({
        name: optional(z.string()),
        status: optional(z.string()),
        message: optional(z.string()),
        failureMessage: optional(z.string()),
        assertionResults: optional(
          z.array(
            z.object({
              ancestorTitles: optional(z.array(z.string())),
              title: optional(z.string()),
              status: optional(z.string()),
              failureMessages: optional(z.array(z.string())),
              location: optional(z.object({ line: optional(z.number()) })),
            }),
          ),
        ),
      }),
    ),
  ),
});

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * A file-level error as vitest/vite and jest print it, made readable: no colour codes (vite's parser
 * colours its frames whatever NO_COLOR says), no "Transform failed with 1 error:" lead line, and the
 * `╭─[ file:line:col ]` frame header joined to the error it belongs to.
 */
export function fileError(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const plain = text.replace(ANSI, '').replace(/^\s*Transform failed with \d+ errors?:\s*\n/, '');
  return shortMessage(plain.replace(/^(\s*\S[^\n]*?)\s*\n\s*╭─\[\s*([^\]\s]+)\s*\]/, '$1 ($2)'), 12);
}

/**
 * Parses the JSON report of jest (`--json`) or vitest (`--reporter=json`), which share a shape.
 * A file that failed with no test results did not load; a file that failed although none of its tests
 * did had a hook (`beforeAll`, `afterAll`) or other code outside the tests fail — vitest then reports
 * the tests as skipped, so the file is the unit that broke.
 */
export function parseJestJson(json: string, workdir: string): { tests: TestOutcome[]; units: UnitStatus[] } {
  const doc = parseJsonAs(jestReport, json, 'the JSON test report');
  const tests: TestOutcome[] = [];
  const units: UnitStatus[] = [];
  for (const f of doc.testResults ?? []) {
    const file = relFile(workdir, f.name);
    const unit = `js:${file}`;
    const assertions = f.assertionResults ?? [];
    const error = fileError(f.message || f.failureMessage);
    if (f.status === 'failed' && assertions.length === 0) {
      units.push({ id: unit, kind: 'file', group: unit, status: 'broken', file, message: error ?? 'the test file failed to load' });
    } else if (f.status === 'failed' && !assertions.some((a) => a.status === 'failed')) {
      const why = 'a hook (beforeAll/afterAll) or code outside the tests failed';
      units.push({ id: unit, kind: 'file', group: unit, status: 'broken', file, message: error ? `${why}: ${error}` : why });
    } else {
      units.push({ id: unit, kind: 'file', group: unit, status: 'ok', file });
    }
    for (const a of assertions) {
      const status = a.status === 'passed' ? 'passed' : a.status === 'failed' ? 'failed' : 'skipped';
      const t: TestOutcome = { id: jsTestId(file, [...(a.ancestorTitles ?? []), a.title ?? '']), status, unit, file };
      if (a.location?.line) t.line = a.location.line;
      const msg = status === 'failed' ? shortMessage((a.failureMessages ?? []).join('\n').replace(ANSI, '')) : undefined;
      if (msg) t.message = msg;
      tests.push(t);
    }
  }
  return { tests, units };
}
