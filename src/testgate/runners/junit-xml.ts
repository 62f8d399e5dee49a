import { XMLParser } from 'fast-xml-parser';
import { isRecord } from '../../core/is-record.js';
import { readCappedText } from '../../core/safe-read.js';

/** One `<testcase>` of a JUnit XML report, flattened. */
export interface JunitCase {
  classname: string;
  name: string;
  file?: string;
  line?: number;
  status: 'passed' | 'failed' | 'skipped';
  /** `<error>` without a test (e.g. pytest's "collection failure"). */
  errorMessage?: string;
  message?: string;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  textNodeName: '#text',
  isArray: (name) => ['testsuite', 'testcase', 'failure', 'error', 'skipped'].includes(name),
  processEntities: true,
});

type Node = Record<string, unknown>;

/** An attribute's value; a hostile report can put an element where an attribute belongs, which reads as ''. */
function attr(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/** The elements the parser made an array (isArray above); absent ones read as none. */
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(node: unknown): string {
  if (typeof node === 'string') return node;
  if (isRecord(node)) {
    const body = typeof node['#text'] === 'string' ? node['#text'] : '';
    const msg = typeof node.message === 'string' ? node.message : '';
    return [msg, body].filter(Boolean).join('\n');
  }
  return '';
}

function collectSuites(node: Node, out: Node[]): void {
  // An element without attributes or children parses as '' and holds no suite.
  for (const s of list(node.testsuite).filter(isRecord)) {
    out.push(s);
    collectSuites(s, out);
  }
}

/** Reads a JUnit XML file a run wrote, safely (no symlink, no FIFO, size cap); throws when unsafe or absent. */
export function readJunitFile(path: string): Promise<string> {
  return readCappedText(path);
}

/** Parses JUnit XML (pytest, node, generic tools) into flat test cases. Throws on malformed XML. */
export function parseJunitXml(xml: string): JunitCase[] {
  const parsed: unknown = parser.parse(xml);
  const doc: Node = isRecord(parsed) ? parsed : {};
  const roots: Node[] = [];
  if (isRecord(doc.testsuites)) roots.push(doc.testsuites);
  if (doc.testsuite) roots.push({ testsuite: doc.testsuite });
  const suites: Node[] = [];
  for (const r of roots) {
    collectSuites(r, suites);
    if (r.testcase) suites.push(r);
  }
  const cases: JunitCase[] = [];
  for (const suite of suites) {
    // A bare `<testcase/>` parses as '': a case without name or outcome elements.
    for (const tc of list(suite.testcase).map((t) => (isRecord(t) ? t : {}))) {
      // `<failure/>` and `<skipped/>` without attributes parse as '': they count by being there.
      const failures = [...list(tc.failure), ...list(tc.error)];
      const skipped = list(tc.skipped).length > 0;
      const c: JunitCase = {
        classname: attr(tc.classname),
        name: attr(tc.name),
        status: failures.length ? 'failed' : skipped ? 'skipped' : 'passed',
      };
      if (tc.file !== undefined) c.file = attr(tc.file);
      if (tc.line !== undefined && !Number.isNaN(Number(tc.line))) c.line = Number(tc.line);
      if (failures.length) c.message = failures.map(text).join('\n');
      const err = list(tc.error)[0];
      if (err && !tc.failure) c.errorMessage = text(err);
      cases.push(c);
    }
  }
  return cases;
}
