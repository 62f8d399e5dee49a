import { describe, expect, it } from 'vitest';
import { plainRunVerdict } from '../../src/bench/plain-run.js';

describe("the bench's plain run of a suite", () => {
  it('counts a clean exit', () => {
    expect(plainRunVerdict({ status: 0, signal: null, output: '' })).toEqual({ ran: true });
  });

  it("counts a suite whose own tests fail, naming its summary (pallets/click's case)", () => {
    const output = '........F.....\nFAILED tests/test_x.py::test_a - assert 1 == 2\n3 failed, 1229 passed, 22 skipped in 9.81s\n';
    expect(plainRunVerdict({ status: 1, signal: null, output })).toEqual({
      ran: true,
      note: "exit 1, the suite's own failures (pytest: 3 failed, 1229 passed, 22 skipped in 9.81s)",
    });
    const ruled = '==== 1 failed, 4 passed in 0.12s ====\n';
    expect(plainRunVerdict({ status: 1, signal: null, output: ruled })).toMatchObject({ ran: true });
  });

  it('counts go test and cargo test failures the same way', () => {
    expect(plainRunVerdict({ status: 1, signal: null, output: '--- FAIL: TestA (0.00s)\nFAIL\texample.com/m\t0.012s\n' })).toMatchObject({
      ran: true,
    });
    expect(
      plainRunVerdict({ status: 101, signal: null, output: 'test result: FAILED. 10 passed; 2 failed; 0 ignored; 0 measured\n' }),
    ).toMatchObject({ ran: true });
  });

  it('fails when the suite did not run: a usage error, a crash, a signal, or no results', () => {
    expect(plainRunVerdict({ status: 4, signal: null, output: 'ERROR: usage: pytest [options]\n' })).toEqual({
      ran: false,
      reason: 'it exited 4, which is not a suite reporting failed tests',
    });
    expect(plainRunVerdict({ status: 1, signal: null, output: '/usr/bin/python: No module named pytest\n' })).toEqual({
      ran: false,
      reason: 'it exited 1 and printed no test results',
    });
    expect(plainRunVerdict({ status: null, signal: 'SIGKILL', output: '1 passed in 0.1s' })).toEqual({
      ran: false,
      reason: 'it was ended by SIGKILL',
    });
    expect(plainRunVerdict({ status: 127, signal: null, output: 'sh: 1: python: not found\n' })).toMatchObject({ ran: false });
  });
});
