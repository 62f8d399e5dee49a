import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingReason, suiteFor, toolchainsRequired, type Toolchain } from '../helpers/toolchains.js';

const only =
  (...present: Toolchain[]) =>
  (t: Toolchain) =>
    present.includes(t);

describe('toolchain-dependent suites', () => {
  it('run where the toolchain is present', () => {
    expect(suiteFor(['go'], only('go'), {})).toBe(describe);
  });

  it('are skipped with a printed reason on a machine without it', () => {
    const printed: string[] = [];
    expect(suiteFor(['go', 'cargo'], only(), {}, (s) => printed.push(s))).not.toBe(describe);
    expect(printed.join('')).toMatch(/skipping .*needs Go \(apt install golang-go\) and Rust with cargo/);
  });

  it('fail instead when SLOPGATE_REQUIRE_TOOLCHAINS is set (CI)', () => {
    expect(() => suiteFor(['pytest'], only('python3'), { SLOPGATE_REQUIRE_TOOLCHAINS: '1' })).toThrow(
      /SLOPGATE_REQUIRE_TOOLCHAINS is set but this suite needs python3 with pytest/,
    );
    expect(toolchainsRequired({ SLOPGATE_REQUIRE_TOOLCHAINS: 'true' })).toBe(true);
    expect(toolchainsRequired({})).toBe(false);
  });

  it('name only what is missing', () => {
    expect(missingReason(['python3', 'go'], only('python3'))).toBe('needs Go (apt install golang-go)');
    expect(missingReason(['python3'], only('python3'))).toBeUndefined();
  });

  it('.ci/run makes every skip fatal and installs what the suites need', () => {
    const script = readFileSync(join(process.cwd(), '.ci', 'run'), 'utf8');
    expect(script).toMatch(/^export SLOPGATE_REQUIRE_TOOLCHAINS=1$/m);
    expect(script).toMatch(/need\+=\(cargo\)/);
    expect(script).toMatch(/need\+=\(golang-go\)/);
    expect(script).toMatch(/need\+=\(python3-pytest\)/);
  });
});
