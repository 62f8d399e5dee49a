import { XMLParser } from 'fast-xml-parser';
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

function text(node: unknown): string {
  if (typeof node === 'string') return node;
  if (node && typeof node === 'object') {
    const n = node as Node; // cast: I/O boundary: JSON-like data walked field by field
    const body = typeof n['#text'] === 'string' ? n['#text'] : '';
    const msg = typeof n.message === 'string' ? n.message : '';
    return [msg, body].filter(Boolean).join('\n');
  }
  return '';
}

function collectSuites(node: Node, out: Node[]): void {
  for (const s of (node.testsuite as Node[] | undefined) ?? []) {
    // cast: I/O boundary: JSON-like data walked field by field
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
  const doc = parser.parse(xml) as Node; // cast: I/O boundary: parsed from a file or a tool's output
  const roots: Node[] = [];
  if (doc.testsuites) roots.push(doc.testsuites as Node); // cast: I/O boundary: JSON-like data walked field by field
  if (doc.testsuite) roots.push({ testsuite: doc.testsuite });
  const suites: Node[] = [];
  for (const r of roots) {
    collectSuites(r, suites);
    if (r.testcase) suites.push(r);
  }
  const cases: JunitCase[] = [];
  for (const suite of suites) {
    for (const tc of (suite.testcase as Node[] | undefined) ?? []) {
      // cast: I/O boundary: JSON-like data walked field by field
      // The parser makes these elements arrays (isArray above) when present; absent ones are undefined.
      const failures = [...((tc.failure as unknown[] | undefined) ?? []), ...((tc.error as unknown[] | undefined) ?? [])];
      const skipped = ((tc.skipped as unknown[] | undefined) ?? []).length > 0; // cast: I/O boundary: JSON-like data walked field by field
      const c: JunitCase = {
        classname: attr(tc.classname),
        name: attr(tc.name),
        status: failures.length ? 'failed' : skipped ? 'skipped' : 'passed',
      };
      if (tc.file !== undefined) c.file = attr(tc.file);
      if (tc.line !== undefined && !Number.isNaN(Number(tc.line))) c.line = Number(tc.line);
      if (failures.length) c.message = failures.map(text).join('\n');
      const err = ((tc.error as unknown[] | undefined) ?? [])[0]; // cast: I/O boundary: JSON-like data walked field by field
      if (err && !tc.failure) c.errorMessage = text(err);
      cases.push(c);
    }
  }
  return cases;
}
