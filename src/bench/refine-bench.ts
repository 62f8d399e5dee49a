import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig } from '../core/config-schema.js';
import { runGate } from '../gate/run-gate.js';
import { GUARDS } from '../guards/index.js';
import type { JsonModel, JsonRequest, JsonResult } from '../llm/port.js';
import { refine } from '../refiner/refine.js';
import { generateMixedPr } from './generate-pr.js';

/**
 * One refine round on a generated mixed-language PR with one syntax error, against one gate run of the
 * same PR. The model is a scripted reply (the fixed file), and the time spent inside it is subtracted,
 * so the number is the refiner's own cost: scope, prompt, candidate commit and the refiner-phase gate.
 * Target (issue 11): under 2 × one gate run.
 */
const SKIP = { G8: 'bench measures static guards only', G9: 'no store in the bench' };

class ReplayModel implements JsonModel {
  readonly model = 'bench-replay';
  ms = 0;
  constructor(private readonly reply: unknown) {}
  async completeJson<T>(request: JsonRequest<T>): Promise<JsonResult<T>> {
    const t0 = performance.now();
    const value = request.schema.parse(this.reply);
    this.ms += performance.now() - t0;
    return { value, usage: { promptTokens: 0, completionTokens: 0, calls: 1 }, model: this.model, attempts: 1 };
  }
}

export async function refineBenchLine(files: number): Promise<string> {
  const dir = generateMixedPr(files);
  try {
    const path = 'pkg0/file0.py';
    const good = readFileSync(join(dir, path), 'utf8');
    writeFileSync(join(dir, path), good.replace('def f0_3(a, b=1):', 'def f0_3(a, b=1)'));
    execFileSync('git', ['commit', '-q', '-am', 'slop'], { cwd: dir, stdio: 'ignore' });
    const config = defaultConfig();
    // Twice: the first run pays for cold caches and the guard thread's start, which a refine round
    // (always after a gate run in the same process) never does; the warm run is the fair comparison.
    let t0 = performance.now();
    await runGate({ repoDir: dir, base: 'main', head: 'pr', guards: GUARDS, skip: SKIP, config });
    const coldMs = performance.now() - t0;
    t0 = performance.now();
    const report = await runGate({ repoDir: dir, base: 'main', head: 'pr', guards: GUARDS, skip: SKIP, config });
    const gateMs = performance.now() - t0;
    const model = new ReplayModel({ files: [{ path, content: good }] });
    const t1 = performance.now();
    const result = await refine({ repoDir: dir, base: 'main', head: 'pr', report, config, guards: GUARDS, skip: SKIP, recipes: [], model });
    const roundMs = performance.now() - t1 - model.ms;
    const kept = result.attempts.filter((a) => a.outcome === 'kept').length;
    return (
      `refine round, ${report.files.length}-file mixed PR: ${roundMs.toFixed(0)} ms without the model ` +
      `(${result.attempts.length} candidate(s), ${kept} kept) vs one warm gate run ${gateMs.toFixed(0)} ms ` +
      `= ${(roundMs / gateMs).toFixed(2)}× (target < 2×; cold gate run ${coldMs.toFixed(0)} ms)`
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
