import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ROUTE_TABLE } from '../../src/core/categories.js';
import { GUARD_IDS, refinerGuardIds } from '../../src/core/guard-ids.js';
import { COMMAND_HELP } from '../../src/cli/help.js';

/** The lists the docs repeat (guard ids, categories, exit codes), held to the code. */
const read = (path: string) => readFileSync(path, 'utf8');

/** The guard ids a list in prose names: `G10–G14` is G10 to G14, `Ψ` (or `Ψ-lite`) is psi; sorted. */
function idsIn(list: string): string[] {
  const ids = [...list.matchAll(/G(\d+)(?:[–-]G(\d+))?|Ψ/g)].flatMap((m) => {
    if (m[0] === 'Ψ') return ['psi'];
    const [from, to] = [Number(m[1]), Number(m[2] ?? m[1])];
    return Array.from({ length: to - from + 1 }, (_, i) => `G${from + i}`);
  });
  return ids.sort();
}

/** What a text says exit code 3 means: the 300 characters from the code on (whitespace flattened). */
function exitThree(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  const at = flat.search(/`?\b3`? (when )?slopgate could not run/);
  return at < 0 ? '' : flat.slice(at, at + 300);
}

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

  it('the example workflow (docs/examples/slopgate.yml) runs on pull_request and merge_group, as its concurrency key assumes', () => {
    const workflow = parseYaml(read('docs/examples/slopgate.yml')) as { on: unknown; concurrency: { group: string } };
    const events = typeof workflow.on === 'string' ? [workflow.on] : Object.keys(workflow.on as object);
    expect(events.sort()).toEqual(['merge_group', 'pull_request']);
    expect(workflow.concurrency.group).toContain('github.event.merge_group.head_ref');
    expect(read('README.md').replace(/\s+/g, ' ')).toMatch(/\*\*GitHub Action\.\*\*[^*]*`pull_request`[^*]*`merge_group`/);
  });

  it('every place that lists the exit codes (README, docs, --help) gives 3 the same meaning: a check it must run could not run, or it crashed', () => {
    const places = {
      'README.md': read('README.md'),
      'docs/cli.md': read('docs/cli.md'),
      'docs/report-formats.md': read('docs/report-formats.md'),
      'docs/refiner-and-qa.md': read('docs/refiner-and-qa.md'),
      'check --help': COMMAND_HELP.check!,
      'refine --help': COMMAND_HELP.refine!,
    };
    for (const [where, text] of Object.entries(places)) {
      const three = exitThree(text);
      expect(three, `${where} does not say 3 is 'slopgate could not run'`).not.toBe('');
      expect(three, where).toMatch(/sandbox/);
      expect(three, where).toMatch(/crash|internal error/);
    }
    const readme = read('README.md').replace(/\s+/g, ' ');
    expect(readme).toMatch(
      /exits `0` when nothing blocks, `1` when the change is blocked, `2` for a usage, config or git error, `3` when slopgate could not run.*`4` when nothing blocks but a check that should have run did not/,
    );
  });

  it("the refiner phase's guards, in refine --help and docs/refiner-and-qa.md, are the registry's", () => {
    const judged = [...refinerGuardIds()].sort();
    const help = /refiner phase of the gate \(([^)]+)\)/.exec(COMMAND_HELP.refine!.replace(/\s+/g, ' '));
    expect(help).not.toBeNull();
    expect(idsIn(help![1]!)).toEqual(judged);
    const doc = /gates `base\.\.candidate` in the refiner phase: (.+?) against the baseline/.exec(
      read('docs/refiner-and-qa.md').replace(/\s+/g, ' '),
    );
    expect(doc).not.toBeNull();
    expect(idsIn(doc![1]!)).toEqual(judged);
  });
});
