/**
 * Webhook benchmark against the real App process and the GitHub stand-in (same harness as the e2e
 * tests). Run with `npx tsx test/e2e/webhook-bench.ts` (E2E_SKIP_BUILD=1 reuses dist/).
 *
 * Measures:
 *  1. webhook → completed check run for the demo slop PR: cold (first job: the mirror is cloned)
 *     and warm (a re-push of the same PR: the mirror only fetches);
 *     and a 3,000-file PR;
 *  2. acknowledgement time of N signed `pull_request.synchronize` deliveries (default 200), sent
 *     one after another: p50, p90, p99 and max. Each one is verified, deduped in the store and queued.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { buildDemoRepo } from '../../src/cli/demo-repo.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';
import { E2eEnv, percentile } from './harness/e2e-env.js';
import { openPull, publishRepo, pushToPull } from './harness/pull-fixtures.js';
import { pullRequestPayload } from './harness/webhooks.js';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 200);

async function main(): Promise<void> {
  const env = await E2eEnv.start();
  const dir = buildDemoRepo();
  try {
    const { state } = env.gh;
    const repo = publishRepo(env.gh, 'acme', 'inventory', dir);
    const pull = openPull(env.gh, { repo, sourceDir: dir, headRef: 'slop-pr' });

    let t0 = performance.now();
    await env.deliver('pull_request', pullRequestPayload(state, pull, 'opened', { installationId: env.installationId }));
    const cold = await env.completedRun(pull);
    const coldMs = performance.now() - t0;
    await env.idle();

    execFileSync('sh', ['-c', 'echo notes > NOTES.txt && git add NOTES.txt && git -c user.email=a@b -c user.name=a commit -q -m notes'], {
      cwd: dir,
    });
    const before = pushToPull(env.gh, pull, dir);
    t0 = performance.now();
    await env.deliver('pull_request', pullRequestPayload(state, pull, 'synchronize', { installationId: env.installationId, before }));
    await env.completedRun(pull);
    const warmMs = performance.now() - t0;
    await env.idle();

    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`pkg/mod${String(i).padStart(4, '0')}.py`] = `def f${i}(x):\n    return x + ${i}\n`;
    const bigSrc = prRepo({ 'README.md': '# big\n' }, files);
    const big = openPull(env.gh, { repo: publishRepo(env.gh, 'acme', 'big', bigSrc.dir), sourceDir: bigSrc.dir, headRef: 'pr' });
    t0 = performance.now();
    await env.deliver('pull_request', pullRequestPayload(state, big, 'opened', { installationId: env.installationId }));
    const bigRun = await env.completedRun(big);
    const bigMs = performance.now() - t0;
    await env.idle();

    const src = prRepo({ 'a.py': 'x = 1\n' }, { 'a.py': 'x = 2\n' });
    const calc = publishRepo(env.gh, 'acme', 'burst', src.dir);
    const burst = openPull(env.gh, { repo: calc, sourceDir: src.dir, headRef: 'pr' });
    const payload = pullRequestPayload(state, burst, 'synchronize', { installationId: env.installationId });
    const acks: number[] = [];
    let non200 = 0;
    for (let i = 0; i < DELIVERIES; i++) {
      const d = await env.deliver('pull_request', payload);
      acks.push(d.ms);
      if (d.status !== 200) non200++;
    }
    const f = (n: number) => `${n.toFixed(1)} ms`;
    const lines = [
      `slopgate webhook benchmark (App process + GitHub stand-in on 127.0.0.1, ${process.platform}, node ${process.version})`,
      `demo PR, webhook → completed check run: cold ${f(coldMs)} (conclusion ${cold.conclusion}, ${cold.annotations.length} annotations), warm re-push ${f(warmMs)}`,
      `3,000-file PR (new repo, cold mirror), webhook → completed check run: ${f(bigMs)} (conclusion ${bigRun.conclusion})`,
      `acknowledgement of ${DELIVERIES} pull_request.synchronize deliveries: p50 ${f(percentile(acks, 50))}, p90 ${f(percentile(acks, 90))}, p99 ${f(percentile(acks, 99))}, max ${f(Math.max(...acks))}; non-200: ${non200}`,
      `OpenAPI violations recorded by the stand-in: ${env.gh.violations.length}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (env.gh.violations.length) process.stdout.write(`${env.gh.violations.slice(0, 20).join('\n')}\n`);
  } finally {
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
    removeTestRepos();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
