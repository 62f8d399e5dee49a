/**
 * Validates every config file G10 knows at the head of real repositories (bare git dirs, for example
 * snapshots of public projects) and prints the schema problems found. Working configs of maintained
 * projects must have none: each problem printed is a false positive of G10 (or of its schema).
 *
 *   npx tsx src/bench/g10-real-configs.ts /path/to/repo.git [...]
 */
import { execFileSync } from 'node:child_process';
import { schemaProblems, schemaTargetOf } from '../guards/g10-config-schema/index.js';
import { formatPath } from '../guards/g10-config-schema/schema-errors.js';

let total = 0;
let withProblems = 0;
const bySchema = new Map<string, number>();
for (const gitDir of process.argv.slice(2)) {
  const git = (...args: string[]) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  let files = 0;
  let bad = 0;
  for (const path of git('ls-tree', '-r', '--name-only', 'HEAD').split('\n').filter(Boolean)) {
    const target = schemaTargetOf(path);
    if (!target) continue;
    let text: string;
    try {
      text = git('show', `HEAD:${path}`);
    } catch {
      continue;
    }
    files++;
    bySchema.set(target.schema, (bySchema.get(target.schema) ?? 0) + 1);
    const result = schemaProblems(text, target);
    if (!result || result.problems.length === 0) continue;
    bad++;
    for (const p of result.problems.slice(0, 3)) {
      console.log(
        `  ${path}:${result.lineOf(p)} [${target.schema}] ${formatPath(p.path)} ${p.keyword}: expected ${p.expected}; found ${p.actual}`,
      );
    }
  }
  console.log(`${gitDir}: ${files} configs, ${bad} with schema problems`);
  total += files;
  withProblems += bad;
}
console.log(`total: ${total} configs, ${withProblems} with schema problems`);
console.log(
  `by schema: ${[...bySchema]
    .sort((a, b) => b[1] - a[1])
    .map(([s, n]) => `${s} ${n}`)
    .join(', ')}`,
);
