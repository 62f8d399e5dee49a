/**
 * Source of a tiny custom reporter for `node --test` (Node ≥ 20): one JSON line per finished test
 * with its file, line, nesting and ancestors, plus the stderr of test files (load errors). Node's own
 * TAP and JUnit reporters leave out the file of passing tests, which stable ids need.
 */
export const NODE_TEST_REPORTER = `
const stacks = new Map();
export default async function* slopgateReporter(source) {
  for await (const ev of source) {
    const d = ev.data || {};
    if (ev.type === 'test:start') {
      const s = stacks.get(d.file) || [];
      s.length = d.nesting;
      s[d.nesting] = d.name;
      stacks.set(d.file, s);
    } else if (ev.type === 'test:pass' || ev.type === 'test:fail') {
      const s = stacks.get(d.file) || [];
      const err = d.details && d.details.error;
      const cause = err && err.cause;
      yield JSON.stringify({
        event: ev.type === 'test:pass' ? 'pass' : 'fail',
        name: d.name,
        nesting: d.nesting,
        ancestors: s.slice(0, d.nesting).map(String),
        file: d.file,
        line: d.line,
        type: d.details && d.details.type,
        skip: Boolean(d.skip) || Boolean(d.todo),
        failureType: err && err.failureType,
        message: String((cause && (cause.message || cause)) || (err && err.message) || '').slice(0, 2000),
      }) + '\\n';
    } else if (ev.type === 'test:stderr' || ev.type === 'test:stdout') {
      yield JSON.stringify({ event: ev.type === 'test:stderr' ? 'stderr' : 'stdout', file: d.file, message: String(d.message || '').slice(0, 4000) }) + '\\n';
    }
  }
}
`;
