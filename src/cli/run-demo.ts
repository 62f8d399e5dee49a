import { rmSync } from 'node:fs';
import { runCheck } from './check.js';
import { GateInfraError } from '../core/errors.js';
import type { ReportFormat } from '../report/index.js';
import { buildDemoRepo } from './demo-repo.js';

/**
 * `slopgate demo`: builds a small repository whose PR reproduces real slop (a config that no longer
 * parses, a helper deleted behind a "remains unchanged" comment, a README whose examples were
 * destroyed) and gates it with the embedded defaults, exactly as `slopgate check` would.
 */
export async function runDemo(opts: { format: ReportFormat; keep: boolean }, write: (s: string) => void): Promise<number> {
  const dir = buildDemoRepo();
  const human = opts.format === 'text';
  if (human) {
    write(`slopgate demo: a healthy project on 'main' and an LLM-written PR on 'slop-pr' in\n  ${dir}\n`);
    write(`running: slopgate check --repo ${dir} --base main --head slop-pr\n\n`);
  }
  try {
    const args = { repo: dir, base: 'main', head: 'slop-pr', format: opts.format, strict: false };
    let code: number;
    try {
      code = await runCheck(args, write);
    } catch (err) {
      // `check` refuses to pass without its sandbox; the demo shows the rest of the gate instead, and says so.
      if (!(err instanceof GateInfraError && err.kind === 'sandbox')) throw err;
      write(
        `slopgate demo: not about the demo's code: ${err.message}\n  (${err.hint}); showing the gate without the tests, as --no-tests would\n\n`,
      );
      code = await runCheck({ ...args, noTests: true }, write);
    }
    if (human) {
      write(`\n'slopgate check' would exit with ${code} (${code === 0 ? 'nothing blocks' : 'the PR is blocked'}).\n`);
      if (opts.keep) write(`The demo repository is kept at ${dir}\n`);
    }
    return 0;
  } finally {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}
