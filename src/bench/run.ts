import { rmSync } from 'node:fs';
import { runGate } from '../core/pipeline.js';
import { GUARDS } from '../guards/index.js';
import { generateMixedPr } from './generate-pr.js';

/** `npm run bench`: measures the gate on generated PRs and prints one line per measurement. */
async function staticGuards(files: number): Promise<void> {
  const dir = generateMixedPr(files);
  try {
    const rssBefore = process.resourceUsage().maxRSS;
    const t0 = performance.now();
    const report = await runGate({
      repoDir: dir,
      base: 'main',
      head: 'pr',
      guards: GUARDS,
      skip: { G8: 'bench measures static guards only', G9: 'no store in the bench' },
    });
    const ms = performance.now() - t0;
    const peakMb = process.resourceUsage().maxRSS / 1024;
    const slow = [...report.guards].sort((a, b) => b.ms - a.ms).slice(0, 4).map((g) => `${g.id} ${g.ms} ms`).join(', ');
    console.log(
      `static guards, ${report.files.length}-file mixed-language PR: ${ms.toFixed(0)} ms wall, peak RSS ${peakMb.toFixed(0)} MB ` +
        `(before the run ${(rssBefore / 1024).toFixed(0)} MB); ${report.findings.length} findings; slowest: ${slow}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const files = Number(process.env.BENCH_FILES ?? 1000);
  await staticGuards(files);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
