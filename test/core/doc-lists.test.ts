import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ROUTE_TABLE } from '../../src/core/categories.js';
import { GUARD_IDS } from '../../src/core/guard-ids.js';
import { COMMAND_HELP } from '../../src/cli/help.js';

/** The lists the docs repeat (guard ids, categories, exit codes), held to the code. */
const read = (path: string) => readFileSync(path, 'utf8');

describe('docs keep the lists of the code', () => {
  it('docs/guards.md has a row for every registered guard', () => {
    const guards = read('docs/guards.md');
    const missing = GUARD_IDS.filter((id) => !guards.includes(`**${id === 'psi' ? 'Ψ' : id}**`));
    expect(missing).toEqual([]);
  });

  it("docs/cli.md's list of guard ids is the registry's, in its order", () => {
    const sentence = /Guard ids \(`--only`, `--skip`, `guards\.disable`\) are ([^;]+);/.exec(read('docs/cli.md').replace(/\s+/g, ' '));
    expect(sentence).not.toBeNull();
    const listed = [...sentence![1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    expect(listed).toEqual([...GUARD_IDS].sort((a, b) => (a === 'psi' ? 1 : b === 'psi' ? -1 : Number(a.slice(1)) - Number(b.slice(1)))));
  });

  it('the README names the guard range up to the highest id', () => {
    const highest = Math.max(...GUARD_IDS.filter((id) => id !== 'psi').map((id) => Number(id.slice(1))));
    expect(read('README.md')).toContain(`(G1–G${highest})`);
  });

  it("docs/guards.md's category table is the route table, bucket by bucket", () => {
    const byBucket = new Map<string, string[]>();
    for (const [category, bucket] of Object.entries(ROUTE_TABLE)) byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), category]);
    const rows = new Map(
      [...read('docs/guards.md').matchAll(/^\| (refine|ask-author|escalate|research|stuck) +\| (.+) \|$/gm)].map((m) => [
        m[1]!,
        [...m[2]!.matchAll(/`([^`]+)`/g)].map((c) => c[1]!),
      ]),
    );
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(byBucket));
  });

  it('every exit code of check (0–3) is documented where exit codes are listed, with --fail-level risk for ADVISE', () => {
    for (const text of [read('docs/cli.md'), read('docs/report-formats.md'), COMMAND_HELP.check!]) {
      for (const code of ['0', '1', '2', '3'])
        expect(text).toMatch(new RegExp(`\`?${code}\`? (nothing|it does|usage|slopgate could not run|internal)`));
    }
    expect(read('docs/report-formats.md').replace(/\s+/g, ' ')).toMatch(/with `--fail-level risk` an ADVISE with a `risk` finding exits 1/);
  });

  it("docs/github-action.md's example workflow runs on pull_request and merge_group, as its concurrency key assumes", () => {
    const block = /```yaml\n# \.github\/workflows\/slopgate\.yml\n([\s\S]*?)```/.exec(read('docs/github-action.md'));
    expect(block).not.toBeNull();
    const workflow = parseYaml(block![1]!) as { on: unknown; concurrency: { group: string } };
    const events = typeof workflow.on === 'string' ? [workflow.on] : Object.keys(workflow.on as object);
    expect(events.sort()).toEqual(['merge_group', 'pull_request']);
    expect(workflow.concurrency.group).toContain('github.event.merge_group.head_ref');
    expect(read('README.md').replace(/\s+/g, ' ')).toMatch(/\*\*GitHub Action\.\*\*[^*]*`pull_request`[^*]*`merge_group`/);
  });
});
