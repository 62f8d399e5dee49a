import { describe, expect, it } from 'vitest';
import { g15 } from '../../src/guards/g15-weak-assertions/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';

const run = async (base: Record<string, string>, head: Record<string, string | null>, config = {}) =>
  findingsOf(await gate(prRepo(base, head), [g15], { config }), 'G15');

describe('G15 weak-assertion: tests the PR adds that assert nothing', () => {
  it('flags added Python tests whose body is pass, ... or a call without any check; passes real asserts, raises and mock checks', async () => {
    const head = `import pytest
from unittest import mock
from app import parse, send


def test_parse_empty():
    pass


def test_parse_spaces():
    """Spaces are ignored."""
    ...


def test_parse_runs():
    parse("a b")


def test_parse_value():
    assert parse("a") == ["a"]


def test_parse_rejects_none():
    with pytest.raises(TypeError):
        parse(None)


def test_send_calls_transport():
    transport = mock.Mock()
    send(transport, "x")
    transport.write.assert_called_once_with("x")


def test_uses_helper():
    check_roundtrip("a")


@pytest.mark.skip(reason="later")
def test_later():
    pass


class TestParse:
    def test_method_without_check(self):
        parse("x")

    def test_method_with_check(self):
        self.assertEqual(parse("x"), ["x"])
`;
    const found = await run({ 'tests/test_parse.py': 'def test_old():\n    assert True\n' }, { 'tests/test_parse.py': head });
    expect(found.map((f) => f.evidence?.test)).toEqual([
      'test_parse_empty',
      'test_parse_spaces',
      'test_parse_runs',
      'TestParse.test_method_without_check',
    ]);
    expect(found.every((f) => f.category === 'weak-assertion' && f.severity === 'risk')).toBe(true);
    expect(found[0]!.message).toContain('has an empty body');
    expect(found[0]!.line).toBe(6);
    expect(found[2]!.message).toContain('checks nothing');
  });

  it('never flags a pre-existing weak test the PR did not touch, but flags one whose body the PR rewrote', async () => {
    const base = `def test_smoke():\n    run()\n\n\ndef test_value():\n    run()\n`;
    const head = `def test_smoke():\n    run()\n\n\ndef test_value():\n    run(1)\n\n\ndef test_new():\n    assert run() == 2\n`;
    const found = await run({ 'tests/test_run.py': base }, { 'tests/test_run.py': head });
    expect(found.map((f) => f.evidence?.test)).toEqual(['test_value']);
    expect(found[0]!.message).toContain('as this PR rewrites it');
  });

  it('a test that only loses its assertions is one tests-weakened finding, not also a weak-assertion', async () => {
    const base = `def test_value():\n    assert run() == 1\n`;
    const head = `def test_value():\n    run()\n`;
    const found = await run({ 'tests/test_run.py': base }, { 'tests/test_run.py': head });
    expect(found.map((f) => [f.category, f.severity, f.evidence?.test])).toEqual([['tests-weakened', 'risk', 'test_value']]);
  });

  it('flags JS/TS it/test blocks without expect or assert; passes expect, assert, t.is and helpers', async () => {
    const head = `import { describe, it, test, expect } from 'vitest';
import assert from 'node:assert';
import { sum } from '../src/sum';

function differential(a: number, b: number) {
  same(sum(a, b), a + b);
}
const same = (x: number, y: number) => expect(x).toBe(y);

describe('sum', () => {
  it('goes through a checking helper of this file (zod shape)', () => {
    differential(1, 2);
  });
  it('adds', () => {
    sum(1, 2);
  });
  it('is empty', () => {});
  test('has expect', () => {
    expect(sum(1, 2)).toBe(3);
  });
  test('has assert', async () => {
    assert.equal(sum(1, 1), 2);
  });
  it('uses a helper', () => {
    expectSum(1, 2, 3);
  });
  it('checks types (zod shape)', () => {
    expectTypeOf<ReturnType<typeof sum>>().toEqualTypeOf<number>();
  });
  test('satisfies', () => {
    sum(1, 2) satisfies number;
  });
  it.todo('later');
});
`;
    const found = await run({ 'test/sum.test.ts': "import { it } from 'vitest';\n" }, { 'test/sum.test.ts': head });
    expect(found.map((f) => [f.evidence?.test, f.line])).toEqual([
      ['adds', 14],
      ['is empty', 17],
    ]);
  });

  it('flags Go tests without t.Error/Fatal, testify or a helper taking t; passes those with them', async () => {
    const head = `package calc

import (
\t"testing"

\t"github.com/stretchr/testify/require"
)

func TestAddNoCheck(t *testing.T) {
\t_ = Add(1, 2)
}

func TestAddErrorf(t *testing.T) {
\tif Add(1, 2) != 3 {
\t\tt.Errorf("bad")
\t}
}

func TestAddRequire(t *testing.T) {
\trequire.Equal(t, 3, Add(1, 2))
}

func TestAddHelper(t *testing.T) {
\tmustAdd(t, 1, 2)
}

func TestEmpty(t *testing.T) {
}
`;
    const found = await run({ 'calc/calc_test.go': 'package calc\n' }, { 'calc/calc_test.go': head });
    expect(found.map((f) => f.evidence?.test)).toEqual(['TestAddNoCheck', 'TestEmpty']);
  });

  it('flags Rust #[test] fns without assert!/panic!/unwrap; passes assert_eq!, #[should_panic] and Result-returning tests', async () => {
    const head = `pub fn add(a: u8, b: u8) -> u8 { a + b }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_quietly() {
        let _ = add(1, 2);
    }

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    #[should_panic]
    fn overflows() {
        add(255, 1);
    }

    #[test]
    fn parses() -> Result<(), std::num::ParseIntError> {
        let n: u8 = "3".parse()?;
        Ok(())
    }

    #[test]
    fn empty() {}

    fn helper() {}
}
`;
    const found = await run({ 'src/lib.rs': 'pub fn add(a: u8, b: u8) -> u8 { a + b }\n' }, { 'src/lib.rs': head });
    expect(found.map((f) => f.evidence?.test)).toEqual(['adds_quietly', 'empty']);
  });

  it('runs with the test gate disabled, and an assert in a comment or a string does not count', async () => {
    const head = `def test_commented():\n    # assert result == 1\n    result = compute()\n    print("assert it worked")\n`;
    const found = await run({ 'tests/test_c.py': '' }, { 'tests/test_c.py': head }, { tests: { enabled: false } });
    expect(found.map((f) => f.evidence?.test)).toEqual(['test_commented']);
  });

  it('ignores non-test files and test-named functions outside test files (except Rust, where tests live inline)', async () => {
    const found = await run(
      { 'app/x.py': '' },
      { 'app/x.py': 'def test_connection(host):\n    return host\n', 'app/y.ts': "it('x', () => { run(); });\n" },
    );
    expect(found).toEqual([]);
  });
});
