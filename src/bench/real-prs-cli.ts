import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { gitMaybe } from '../core/git.js';
import { parseJsonAs } from '../core/parse-data.js';
import { GUARDS } from '../guards/index.js';
import { corpusPrSchema, corpusRepoSchema, mergedPrs, mirrorDir, mirrorRoot, type CorpusPr, type CorpusSkip } from './real-prs-corpus.js';
import { agentPrs, type AgentPr } from './agent-prs-corpus.js';
import { renderByLabel, renderResults, runCorpus } from './real-prs.js';

/**
 * `npm run bench:real` (run) and `npm run bench:real:corpus` (corpus).
 *
 *   run     gates every PR of bench/real-prs.json on the fetched mirrors, prints the table, every
 *           blocking finding and the ADVISE categories, and writes bench/results/real-prs.json.
 *   corpus  rebuilds bench/real-prs.json from the mirrors listed in bench/repos.json.
 *
 * Mirrors are bare git dirs under SLOPGATE_MIRRORS (default /work/.mirror) named owner+name[/repo].
 */
/** bench/repos.json: the repositories of the corpus and how many PRs to take from each. */
const reposFileSchema = z.object({
  perRepo: z.number(),
  maxFiles: z.number(),
  repos: z.array(corpusRepoSchema),
  /** Extra mirrors scanned only for agent-written PRs. */
  agentRepos: z.array(corpusRepoSchema).optional(),
});
const corpusSchema = z.array(corpusPrSchema);

/** One of the bench's own input files, checked against `schema`: a hand edit with a typo stops the run with its path. */
const readJson = <T>(schema: z.ZodType<T>, path: string): T => parseJsonAs(schema, readFileSync(path, 'utf8'), path);

async function corpus(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      repos: { type: 'string', default: 'bench/repos.json' },
      out: { type: 'string', default: 'bench/real-prs.json' },
      mirrors: { type: 'string', default: mirrorRoot() },
    },
  });
  const spec = readJson(reposFileSchema, resolve(values.repos));
  const outPath = resolve(values.out);
  const previous = existsSync(outPath) ? readJson(corpusSchema, outPath) : [];
  const prs: CorpusPr[] = [];
  const skipped: CorpusSkip[] = [];
  for (const target of spec.repos) {
    const dir = mirrorDir(values.mirrors, target.repo);
    if (!dir) {
      const kept = previous.filter((p) => p.repo === target.repo);
      console.error(`${target.repo}: no mirror under ${values.mirrors}; keeping its ${kept.length} PRs from the current corpus`);
      prs.push(...kept);
      continue;
    }
    const got = await mergedPrs(dir, target, { count: spec.perRepo, maxFiles: spec.maxFiles });
    console.error(
      `${target.repo}: ${got.prs.length} PRs (#${got.prs.at(-1)?.pr ?? '-'}…#${got.prs[0]?.pr ?? '-'}), ${got.skipped.length} skipped`,
    );
    prs.push(...got.prs);
    skipped.push(...got.skipped);
  }
  writeFileSync(outPath, JSON.stringify(prs, null, 1) + '\n');
  writeFileSync(outPath.replace(/\.json$/, '-skipped.json'), JSON.stringify(skipped, null, 1) + '\n');
  console.error(`wrote ${prs.length} PRs to ${values.out} (${skipped.length} skipped, listed next to it)`);
  return 0;
}

async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      corpus: { type: 'string', default: 'bench/real-prs.json' },
      mirrors: { type: 'string', default: mirrorRoot() },
      out: { type: 'string', default: 'bench/results/real-prs.json' },
      repo: { type: 'string', multiple: true },
      quiet: { type: 'boolean', default: false },
    },
  });
  const list = readJson(corpusSchema, resolve(values.corpus));
  if (!existsSync(values.mirrors)) {
    console.log(`bench:real skipped: no mirror directory at ${values.mirrors} (set SLOPGATE_MIRRORS; mirrors need the network to fetch)`);
    return 0;
  }
  const res = await runCorpus({
    corpus: list,
    mirrors: values.mirrors,
    guards: GUARDS,
    ...(values.repo ? { only: values.repo } : {}),
    onResult: (r, done, total) => {
      if (!values.quiet)
        process.stderr.write(`[${done}/${total}] ${r.repo}#${r.pr} ${r.outcome} ${r.findings.length} findings ${r.ms} ms\n`);
    },
  });
  if (res.total.prs === 0) {
    console.log(`bench:real skipped: none of the corpus mirrors is under ${values.mirrors} (missing: ${res.missing.join(', ')})`);
    return 0;
  }
  const sha = (await gitMaybe(process.cwd(), ['rev-parse', '--short', 'HEAD']))?.trim();
  if (sha) res.slopgate = sha;
  const outPath = resolve(values.out);
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, JSON.stringify(res, null, 1) + '\n');
  process.stdout.write(renderResults(res));
  for (const label of ['fate', 'agent']) {
    const table = renderByLabel(res, label);
    if (table) process.stdout.write(`\n${table}`);
  }
  console.log(`\nresults: ${values.out}`);
  return 0;
}

async function agents(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      repos: { type: 'string', default: 'bench/repos.json' },
      out: { type: 'string', default: 'bench/agent-prs.json' },
      mirrors: { type: 'string', default: mirrorRoot() },
    },
  });
  const spec = readJson(reposFileSchema, resolve(values.repos));
  const all: AgentPr[] = [];
  for (const target of [...spec.repos, ...(spec.agentRepos ?? [])]) {
    const dir = mirrorDir(values.mirrors, target.repo);
    if (!dir) {
      console.error(`${target.repo}: no mirror under ${values.mirrors}`);
      continue;
    }
    const got = await agentPrs(dir, target.repo, target.language, { maxFiles: spec.maxFiles });
    if (got.length) console.error(`${target.repo}: ${got.length} agent PRs`);
    all.push(...got);
  }
  writeFileSync(resolve(values.out), JSON.stringify(all, null, 1) + '\n');
  console.error(`wrote ${all.length} agent PRs to ${values.out}`);
  return 0;
}

const [cmd, ...rest] = process.argv.slice(2);
const job = cmd === 'corpus' ? corpus(rest) : cmd === 'agents' ? agents(rest) : cmd === 'run' || cmd === undefined ? run(rest) : null;
if (!job) {
  console.error('usage: real-prs-cli.js [run|corpus|agents] [options]');
  process.exitCode = 2;
} else {
  job.then(
    (code) => (process.exitCode = code),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
