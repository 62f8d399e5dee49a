import { rmSync } from 'node:fs';
import { loadPatchSet } from '../core/patch-set.js';
import { runGate } from '../gate/run-gate.js';
import { Revision } from '../core/revision.js';
import { GUARDS } from '../guards/index.js';
import { computeFingerprint } from '../repo/fingerprint.js';
import { cliStartupLine } from './cli-startup.js';
import { generateMonorepoPr } from './generate-monorepo.js';
import { idleMemoryLine } from './idle-memory.js';
import { generateMixedPr } from './generate-pr.js';
import { parseCorpusBench } from './parse-corpus.js';
import { realCostLines } from './real-cost.js';
import { refineBenchLine } from './refine-bench.js';
import { testGateBenchLine } from './testgate-bench.js';
import { workspaceBenchLine } from './workspace-bench.js';

/**
 * `npm run bench`: measures the gate on generated pull requests and prints one line per measurement.
 * BENCH_ONLY=startup,static,grounding,refine,tests,real,workspace,memory,parse picks parts; BENCH_FILES sets the PR size; the parse part reads
 * the real-repository corpus from PARSE_CORPUS_DIR or the first argument (skipped when absent).
 */
const STATIC_SKIP = { G8: 'bench measures static guards only', G9: 'no store in the bench' };

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

async function staticGuards(files: number): Promise<void> {
  const dir = generateMixedPr(files);
  try {
    const t0 = performance.now();
    const report = await runGate({ repoDir: dir, base: 'main', head: 'pr', guards: GUARDS, skip: STATIC_SKIP });
    const ms = performance.now() - t0;
    const slow = [...report.guards]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 4)
      .map((g) => `${g.id} ${g.ms} ms`)
      .join(', ');
    console.log(
      `static guards, ${report.files.length}-file mixed-language PR: ${ms.toFixed(0)} ms wall, peak RSS ${mb(process.resourceUsage().maxRSS)}; ` +
        `${report.findings.length} findings; slowest: ${slow}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function grounding(changed: number): Promise<void> {
  const dir = generateMonorepoPr(400, changed);
  try {
    const patch = await loadPatchSet(dir, 'main', 'pr');
    const rev = new Revision(dir, patch.baseSha, undefined, patch.baseTree);
    const files = (await rev.paths()).length;
    let t0 = performance.now();
    const fp = await computeFingerprint(rev);
    const cold = performance.now() - t0;
    t0 = performance.now();
    await computeFingerprint(new Revision(dir, patch.baseSha, undefined, patch.baseTree));
    const warm = performance.now() - t0;
    console.log(
      `fingerprint of a ${files}-file monorepo with ${fp.manifests.length} manifests: cold ${cold.toFixed(0)} ms, cached ${warm.toFixed(1)} ms`,
    );
    t0 = performance.now();
    const report = await runGate({ repoDir: dir, base: 'main', head: 'pr', guards: GUARDS, skip: STATIC_SKIP });
    const ms = performance.now() - t0;
    const grounding = report.guards
      .filter((g) => ['G4', 'G10', 'G11', 'G12', 'G14', 'psi'].includes(g.id))
      .map((g) => `${g.id} ${g.ms} ms`)
      .join(', ');
    console.log(
      `grounding guards, ${report.files.length} changed docs and configs in that monorepo: ${ms.toFixed(0)} ms wall for the whole gate ` +
        `(${grounding}), peak RSS ${mb(process.resourceUsage().maxRSS)}; ${report.findings.length} findings`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const only = (process.env.BENCH_ONLY ?? 'startup,static,grounding,refine,tests,real,workspace,memory,parse').split(',');
  const files = Number(process.env.BENCH_FILES ?? 1000);
  if (only.includes('startup')) console.log(cliStartupLine());
  if (only.includes('static')) await staticGuards(files);
  if (only.includes('grounding')) await grounding(files);
  if (only.includes('refine')) console.log(await refineBenchLine(files));
  if (only.includes('tests')) console.log(await testGateBenchLine());
  if (only.includes('real')) for (const line of await realCostLines()) console.log(line);
  if (only.includes('workspace')) console.log(await workspaceBenchLine());
  if (only.includes('memory')) console.log(await idleMemoryLine());
  if (only.includes('parse')) {
    const falseErrors = await parseCorpusBench(process.argv[2] ?? process.env.PARSE_CORPUS_DIR);
    if (falseErrors > 0) process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
