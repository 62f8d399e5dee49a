import { spawnSync } from 'node:child_process';
import { describe } from 'vitest';

/**
 * Toolchains some suites need besides Node and git. On a machine without one, those suites are
 * skipped with a printed reason, so `npm ci && npm test` passes with only Node and git. CI sets
 * SLOPGATE_REQUIRE_TOOLCHAINS=1 (see .ci/run): there a missing toolchain fails the test file instead
 * of skipping it, so nothing goes untested unnoticed.
 *
 * Use: `needs('go')('G8 on Go repositories', () => { … })` in place of `describe(…)`.
 */
export type Toolchain = 'python3' | 'pytest' | 'go' | 'cargo' | 'clippy' | 'rustfmt' | 'maven' | 'bwrap' | 'bash' | 'chromium';

const PROBES: Record<Toolchain, { cmd: string; args: string[]; install: string }> = {
  python3: { cmd: 'python3', args: ['--version'], install: 'python3' },
  pytest: { cmd: 'python3', args: ['-c', 'import pytest'], install: 'python3 with pytest (apt install python3-pytest)' },
  go: { cmd: 'go', args: ['version'], install: 'Go (apt install golang-go)' },
  bash: { cmd: 'bash', args: ['--version'], install: 'bash' },
  // The dashboard's browser tests drive Debian's Chromium through playwright-core.
  chromium: { cmd: '/usr/bin/chromium', args: ['--version'], install: 'Chromium (apt install chromium)' },
  cargo: { cmd: 'cargo', args: ['--version'], install: 'Rust with cargo (apt install cargo)' },
  rustfmt: { cmd: 'rustfmt', args: ['--version'], install: 'rustfmt (rustup component add rustfmt, or apt install rustfmt)' },
  clippy: { cmd: 'cargo', args: ['clippy', '--version'], install: 'clippy (rustup component add clippy, or apt install rust-clippy)' },
  // Maven and a JDK (javac): `mvn -v` fails without a Java runtime, and the build needs the compiler.
  maven: { cmd: 'sh', args: ['-c', 'mvn -B -v && javac -version'], install: 'a JDK and Maven (apt install default-jdk-headless maven)' },
  // Present is not enough: it must be able to create a namespace here (containers may forbid it).
  bwrap: {
    cmd: 'bwrap',
    args: ['--ro-bind', '/', '/', '--dev', '/dev', 'true'],
    install: 'bubblewrap (apt install bubblewrap) with user namespaces allowed',
  },
};

const found = new Map<Toolchain, boolean>();

export function hasToolchain(tool: Toolchain): boolean {
  let ok = found.get(tool);
  if (ok === undefined) {
    const p = PROBES[tool];
    const r = spawnSync(p.cmd, p.args, { stdio: 'ignore', timeout: 60_000 });
    ok = r.status === 0;
    found.set(tool, ok);
  }
  return ok;
}

export function toolchainsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test(env.SLOPGATE_REQUIRE_TOOLCHAINS ?? '');
}

/** The reason a suite needing `tools` cannot run here, or undefined when it can. */
export function missingReason(tools: Toolchain[], has: (t: Toolchain) => boolean = hasToolchain): string | undefined {
  const missing = tools.filter((t) => !has(t));
  return missing.length ? `needs ${missing.map((t) => PROBES[t].install).join(' and ')}` : undefined;
}

/**
 * `describe`, skipped (with the reason printed) when a toolchain is missing, or failing the file
 * when SLOPGATE_REQUIRE_TOOLCHAINS is set.
 */
export function needs(...tools: Toolchain[]): typeof describe | typeof describe.skip {
  return suiteFor(tools);
}

export function suiteFor(
  tools: Toolchain[],
  has: (t: Toolchain) => boolean = hasToolchain,
  env: NodeJS.ProcessEnv = process.env,
  log: (s: string) => void = (s) => process.stderr.write(s),
): typeof describe | typeof describe.skip {
  const reason = missingReason(tools, has);
  if (!reason) return describe;
  if (toolchainsRequired(env)) throw new Error(`SLOPGATE_REQUIRE_TOOLCHAINS is set but this suite ${reason}: install it (see .ci/run)`);
  log(`[toolchains] skipping suites of this file: ${reason}\n`);
  return describe.skip;
}
