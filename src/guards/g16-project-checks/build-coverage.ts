import type { GuardContext } from '../../core/guard.js';
import { detectRunner, type Detection } from '../../testgate/index.js';
import type { BuildCommand } from './build-commands.js';

/**
 * Whether G8's test run already compiles what a build would, at both sides, so that G16 does not
 * build it a second time. The runner is the one G8 detects from the base (the same detection, with
 * tests.command and tests.runner):
 * - `go test ./...` compiles every package of the module, those without a `_test.go` file too (Go
 *   1.22 and later print `[build failed]` for them; observed with go1.26), so `go build` adds nothing;
 *   a `go test` narrowed to some packages does not cover the others, and the build runs.
 * - cargo's runner builds every target with `cargo build --tests` before it tests.
 * - Maven's `mvn test` runs the `compile` phase first.
 * Node builds are never covered: vitest, jest and `node --test` run the sources without bundling them.
 * Returns the reason of the skip, or null when the build runs.
 */
export async function buildCoveredByTests(ctx: GuardContext, build: BuildCommand): Promise<string | null> {
  if (build.eco === 'node' || build.eco === 'python') return null;
  const t = ctx.config.tests;
  const detection = await ctx.memo('g16:g8-runner', () =>
    detectRunner(ctx.base, { command: t.command, runner: t.runner }).catch((): Detection => ({ skipped: 'unknown' })),
  );
  if (!('runner' in detection)) return null;
  const runner = detection.runner;
  if (build.eco === 'go' && runner.id === 'go' && wholeModule(runner.command))
    return "G8's `go test ./...` compiles every package of the module at both sides, those without test files too";
  if (build.eco === 'cargo' && runner.id === 'cargo')
    return "G8's cargo test builds every target of the crate at both sides (`cargo build --tests`)";
  if (build.eco === 'maven' && runner.id === 'maven') return "G8's `mvn test` compiles the main code at both sides";
  return null;
}

/** The go runner's command tests `./...` and nothing narrower (`go test -count=1 -json [options] ./... > …`). */
function wholeModule(command: string): boolean {
  const before = command.split('>')[0] ?? '';
  const packages = before.split(/\s+/).filter((w) => w.startsWith('./') || (w !== '' && !w.startsWith('-') && w.includes('/')));
  return packages.length === 1 && packages[0] === './...';
}
