import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateMixedPr } from './generate-pr.js';

/**
 * How long `slopgate` takes to start: the median wall time of a few runs of `node dist/bin/slopgate.js` (the installed `slopgate`) per command,
 * next to a bare `node -e 0` on the same machine at the same moment (the ratio is what to compare between
 * machines). `--version`, `help` and a command's `--help` load only the CLI's dispatcher and the help text;
 * `check` loads the pipeline and the guards, and here gates a small generated pull request without tests.
 */
const DIST = dirname(dirname(fileURLToPath(import.meta.url)));

function medianMs(args: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    times.push(performance.now() - t0);
    // check exits 1 when the generated PR is blocked; anything else means the command did not run.
    if (r.status !== 0 && r.status !== 1)
      throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.toString().slice(0, 500)}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export function cliStartupLine(runs = 9): string {
  const cli = join(DIST, 'bin', 'slopgate.js');
  const bare = medianMs(['-e', '0'], runs);
  const parts = [`node -e 0 ${bare.toFixed(0)} ms`];
  for (const [name, args] of [
    ['slopgate --version', ['--version']],
    ['slopgate help', ['help']],
    ['slopgate check --help', ['check', '--help']],
  ] as const) {
    const ms = medianMs([cli, ...args], runs);
    parts.push(`${name} ${ms.toFixed(0)} ms (${(ms / bare).toFixed(1)}×)`);
  }
  const dir = generateMixedPr(10);
  try {
    const ms = medianMs([cli, 'check', '--repo', dir, '--base', 'main', '--head', 'pr', '--no-tests', '-f', 'json'], Math.min(runs, 5));
    parts.push(`slopgate check of a 10-file PR without tests ${ms.toFixed(0)} ms (${(ms / bare).toFixed(1)}×)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return `CLI start-up, median of ${runs} runs: ${parts.join('; ')}`;
}
