import { describe, expect, it } from 'vitest';
import { g4 } from '../../src/guards/g4-imports/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

async function signatureFindings(base: Record<string, FileContent>, head: Record<string, FileContent>) {
  const report = await gate(prRepo(base, head), [g4]);
  return findingsOf(report, 'G4').filter((f) => f.category === 'signature-change');
}

describe('G4 signature-change', () => {
  it('flags a required parameter added to a public Python function as a risk, with old and new lists', async () => {
    const findings = await signatureFindings(
      { 'db.py': 'def connect(path):\n    return path\n' },
      { 'db.py': '# db\n\ndef connect(path, timeout):\n    return path\n' },
    );
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.severity).toBe('risk');
    expect(f.line).toBe(3);
    expect(f.message).toContain("'connect'");
    expect(f.message).toContain('(path) at base, (path, timeout) at head');
  });

  it('passes a change to a private _helper and to a function whose body alone changed', async () => {
    const findings = await signatureFindings(
      { 'db.py': 'def _helper(a):\n    return a\n\n\ndef run(x, y=2):\n    return x\n' },
      { 'db.py': 'def _helper(a, b):\n    return a + b\n\n\ndef run(x,  y=2):\n    return x * 2\n' },
    );
    expect(findings).toEqual([]);
  });

  it('flags public methods of public classes, including __init__, but not _private methods or _Private classes', async () => {
    const findings = await signatureFindings(
      {
        'm.py':
          'class Store:\n    def __init__(self, url):\n        pass\n\n    def get(self, key):\n        pass\n\n    def _evict(self):\n        pass\n\n\nclass _Cache:\n    def get(self, k):\n        pass\n',
      },
      {
        'm.py':
          'class Store:\n    def __init__(self, url, pool):\n        pass\n\n    def get(self, key):\n        pass\n\n    def _evict(self, n):\n        pass\n\n\nclass _Cache:\n    def get(self, k, d):\n        pass\n',
      },
    );
    expect(findings.map((f) => f.evidence?.name)).toEqual(['Store.__init__']);
  });

  it('reports an appended optional Python parameter as a nit: existing calls still work', async () => {
    const findings = await signatureFindings(
      { 'api.py': 'def fetch(url):\n    pass\n' },
      { 'api.py': 'def fetch(url, retries=3, *, verify: bool = True):\n    pass\n' },
    );
    // A bare `*` only marks the rest keyword-only; with defaults behind it old calls still work.
    expect(findings.map((f) => f.severity)).toEqual(['nit']);
    const required = await signatureFindings({ 'c.py': 'def g(a):\n    pass\n' }, { 'c.py': 'def g(a, *, strict):\n    pass\n' });
    expect(required.map((f) => f.severity)).toEqual(['risk']);
    const optional = await signatureFindings({ 'b.py': 'def f(a):\n    pass\n' }, { 'b.py': 'def f(a, b=None, **kw):\n    pass\n' });
    expect(optional.map((f) => [f.severity, f.message.includes('optional')])).toEqual([['nit', true]]);
  });

  it('flags a TS exported function that lost a parameter, not a non-exported one', async () => {
    const findings = await signatureFindings(
      { 'src/a.ts': 'export function total(items: number[], tax: number): number {\n  return 0;\n}\nfunction local(a: string) {}\n' },
      { 'src/a.ts': 'export function total(items: number[]): number {\n  return 0;\n}\nfunction local() {}\n' },
    );
    expect(findings.map((f) => [f.evidence?.name, f.severity, f.line])).toEqual([['total', 'risk', 1]]);
    expect(findings[0]!.message).toContain('(items: number[], tax: number) at base, (items: number[]) at head');
  });

  it('flags exported arrow consts, `export { x }` lists and public class methods; skips private/#hidden', async () => {
    const findings = await signatureFindings(
      {
        'src/b.ts': [
          'export const add = (a: number) => a;',
          'function sub(a: number) { return a; }',
          'export { sub as minus };',
          'export class Cart { add(item: string) {} private calc(x: number) {} #hidden(y: number) {} }',
          '',
        ].join('\n'),
      },
      {
        'src/b.ts': [
          'export const add = (a: number, b: number) => a + b;',
          'function sub(a: number, b: number) { return a - b; }',
          'export { sub as minus };',
          'export class Cart { add(item: string, qty: number) {} private calc() {} #hidden() {} }',
          '',
        ].join('\n'),
      },
    );
    expect(findings.map((f) => f.evidence?.name).sort()).toEqual(['Cart.add', 'add', 'minus']);
  });

  it('reports a JS parameter appended with a default as a nit', async () => {
    const findings = await signatureFindings(
      { 'lib/x.js': 'export function greet(name) { return name; }\n' },
      { 'lib/x.js': 'export function greet(name, greeting = "hi") { return greeting + name; }\n' },
    );
    expect(findings.map((f) => f.severity)).toEqual(['nit']);
  });

  it('flags a Go exported function and method on an exported type; ignores unexported ones', async () => {
    const findings = await signatureFindings(
      {
        'store/store.go':
          'package store\n\nfunc Open(path string) error { return nil }\n\nfunc (s *Store) Get(key string) {}\n\nfunc helper(a int) {}\n\nfunc (c *cache) Put(k string) {}\n',
      },
      {
        'store/store.go':
          'package store\n\nfunc Open(path string, readOnly bool) error { return nil }\n\nfunc (s *Store) Get(ctx context.Context, key string) {}\n\nfunc helper() {}\n\nfunc (c *cache) Put() {}\n',
      },
    );
    expect(findings.map((f) => [f.evidence?.name, f.severity, f.line])).toEqual([
      ['Open', 'risk', 3],
      ['Store.Get', 'risk', 5],
    ]);
  });

  it('flags a Rust pub fn and pub method in an inherent impl; ignores pub(crate), private and trait impls', async () => {
    const findings = await signatureFindings(
      {
        'src/lib.rs':
          'pub fn parse(s: &str) -> u8 { 0 }\npub(crate) fn inner(a: u8) {}\npub struct P;\nimpl P {\n    pub fn new(x: u8) -> Self { P }\n    fn hidden(y: u8) {}\n}\nimpl Default for P { fn default() -> Self { P } }\n',
      },
      {
        'src/lib.rs':
          'pub fn parse(s: &str, strict: bool) -> u8 { 0 }\npub(crate) fn inner() {}\npub struct P;\nimpl P {\n    pub fn new(x: u8, y: u8) -> Self { P }\n    fn hidden() {}\n}\nimpl Default for P { fn default() -> Self { P } }\n',
      },
    );
    expect(findings.map((f) => [f.evidence?.name, f.line])).toEqual([
      ['parse', 1],
      ['P::new', 5],
    ]);
  });

  it('passes a removed function (that is G7) and a newly added public function', async () => {
    const findings = await signatureFindings({ 'a.py': 'def old(a):\n    pass\n' }, { 'a.py': 'def new(a, b):\n    pass\n' });
    expect(findings).toEqual([]);
  });

  it('compares a renamed file against its old path', async () => {
    const body = (params: string) =>
      `def handler(${params}):\n    return 1\n` + '\n\n'.concat(Array.from({ length: 20 }, (_, i) => `X${i} = ${i}`).join('\n'), '\n');
    const findings = await signatureFindings(
      { 'old_name.py': body('event') },
      { 'old_name.py': null, 'new_name.py': body('event, context') },
    );
    expect(findings.map((f) => [f.path, f.evidence?.name])).toEqual([['new_name.py', 'handler']]);
  });
});

describe('G4 signature-change: default values', () => {
  it('treats a changed default value as a nit, not a breaking change', async () => {
    const repo = prRepo(
      { 'pyproject.toml': '[project]\nname = "x"\n', 'lib/api.py': 'def fetch(url, retries=3):\n    return url\n' },
      { 'lib/api.py': 'def fetch(url, retries=5):\n    return url\n' },
    );
    const report = await gate(repo, [g4]);
    const f = report.findings.filter((x) => x.category === 'signature-change');
    expect(f).toHaveLength(1);
    expect(f[0]!.severity).toBe('nit');
  });
});

describe('G4 signature-change: not call signatures', () => {
  it('ignores @overload stubs, @property getters/setters and JS get/set accessors; still flags the implementation', async () => {
    const base = `from typing import overload


class Box:
    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        self._size = value


@overload
def parse(x: int) -> int: ...
@overload
def parse(x: str) -> str: ...
def parse(x):
    return x
`;
    const head = `from typing import overload


class Box:
    @property
    def size(self) -> int:
        return self._size

    @size.setter
    def size(self, value: int) -> None:
        self._size = int(value)


@overload
def parse(x: int, strict: bool) -> int: ...
@overload
def parse(x: str, strict: bool) -> str: ...
def parse(x, strict):
    return x
`;
    const js = (v: string) => `export class Box {\n  get size() {\n    return 1;\n  }\n  set size(${v}) {}\n}\n`;
    const found = await signatureFindings({ 'app/box.py': base, 'web/box.js': js('v') }, { 'app/box.py': head, 'web/box.js': js('value') });
    expect(found.map((f) => f.evidence?.name)).toEqual(['parse']);
    expect(found[0]!.message).toContain('(x) at base, (x, strict) at head');
  });

  it('ignores test functions: test files, test_* functions and Test* classes', async () => {
    const found = await signatureFindings(
      {
        'tests/test_api.py': `def test_get(client):\n    assert client\n\n\ndef make_user(name):\n    return name\n`,
        'app/checks.py': `def test_connection(host):\n    return host\n\n\nclass TestHelper:\n    def run(self, a):\n        return a\n`,
        'pkg/api_test.go': `package pkg\n\nfunc TestGet(t *testing.T) {}\n\nfunc Helper(a int) int { return a }\n`,
      },
      {
        'tests/test_api.py': `def test_get(client, db):\n    assert client\n\n\ndef make_user(name, admin):\n    return name\n`,
        'app/checks.py': `def test_connection(host, port):\n    return host\n\n\nclass TestHelper:\n    def run(self, a, b):\n        return a\n`,
        'pkg/api_test.go': `package pkg\n\nfunc TestGet(t *testing.T, x int) {}\n\nfunc Helper(a, b int) int { return a }\n`,
      },
    );
    expect(found).toEqual([]);
  });
});

describe('G4 signature-change: Python annotations and private modules', () => {
  it('ignores annotation-only changes (typing.Any → Any) and private modules; still flags a renamed parameter', async () => {
    const found = await signatureFindings(
      {
        'app/api.py':
          'import typing\n\n\ndef get(obj: typing.Any, *args: typing.Any, key: str = "a") -> None:\n    pass\n\n\ndef put(obj, value):\n    pass\n',
        'app/_utils.py': 'def helper(a):\n    return a\n',
      },
      {
        'app/api.py':
          'from typing import Any\n\n\ndef get(obj: Any, *args: Any, key: "str" = "a") -> None:\n    pass\n\n\ndef put(obj, new_value):\n    pass\n',
        'app/_utils.py': 'def helper(a, b):\n    return a\n',
      },
    );
    expect(found.map((f) => f.evidence?.name)).toEqual(['put']);
  });
});
