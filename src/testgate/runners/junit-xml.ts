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

function text(node: unknown): string {
  if (typeof node === 'string') return node;
  if (node && typeof node === 'object') {
    const n = node as Node;
    const body = typeof n['#text'] === 'string' ? (n['#text'] as string) : '';
    const msg = typeof n.message === 'string' ? n.message : '';
    return [msg, body].filter(Boolean).join('\n');
  }
  return '';
}

function collectSuites(node: Node, out: Node[]): void {
  for (const s of (node.testsuite as Node[] | undefined) ?? []) {
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
  const doc = parser.parse(xml) as Node;
  const roots: Node[] = [];
  if (doc.testsuites) roots.push(doc.testsuites as Node);
  if (doc.testsuite) roots.push({ testsuite: doc.testsuite });
  const suites: Node[] = [];
  for (const r of roots) {
    collectSuites(r, suites);
    if (r.testcase) suites.push(r);
  }
  const cases: JunitCase[] = [];
  for (const suite of suites) {
    for (const tc of (suite.testcase as Node[] | undefined) ?? []) {
      const failures = [...((tc.failure as unknown[]) ?? []), ...((tc.error as unknown[]) ?? [])];
      const skipped = ((tc.skipped as unknown[]) ?? []).length > 0;
      const c: JunitCase = {
        classname: String(tc.classname ?? ''),
        name: String(tc.name ?? ''),
        status: failures.length ? 'failed' : skipped ? 'skipped' : 'passed',
      };
      if (tc.file !== undefined) c.file = String(tc.file);
      if (tc.line !== undefined && !Number.isNaN(Number(tc.line))) c.line = Number(tc.line);
      if (failures.length) c.message = failures.map(text).join('\n');
      const err = ((tc.error as unknown[]) ?? [])[0];
      if (err && !tc.failure) c.errorMessage = text(err);
      cases.push(c);
    }
  }
  return cases;
}
