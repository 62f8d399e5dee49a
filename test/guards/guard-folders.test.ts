import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import { parseConfigText } from '../../src/config/load.js';
import { GUARDS } from '../../src/guards/index.js';

/**
 * A guard owns everything about itself: its folder (the guard with its needs, its README), its page
 * under docs/guards/ named after the folder, its tests under test/guards/, its config entry, and its
 * recipes. This file holds every registered guard to that, and holds CONTRIBUTING's walk-through
 * ("Walkthrough: adding a guard") to what the existing guards really are.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const list = (dir: string) => readdirSync(join(ROOT, dir));

/** Folders of src/guards/ that are no guard's. */
const NOT_A_GUARD = new Set(['shared']);
/** Test files of test/guards/ that are no guard's. */
const NOT_A_GUARDS_TEST = new Set(['guard-folders.test.ts']);

const FOLDERS = readdirSync(join(ROOT, 'src/guards'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && !NOT_A_GUARD.has(d.name))
  .map((d) => d.name);

/** The exports of each guard folder's index.ts. */
const INDEX = new Map<string, Record<string, unknown>>(
  // cast: a module loaded at run time
  await Promise.all(
    FOLDERS.map(
      async (f) => [f, (await import(/* @vite-ignore */ join(ROOT, 'src/guards', f, 'index.ts'))) as Record<string, unknown>] as const,
    ),
  ),
);

/** A guard's folder: named after its id (`psi`), or its id and a name (`g9-history`). */
function folderOf(guard: Guard): string {
  const id = guard.id.toLowerCase();
  const found = FOLDERS.filter((f) => f === id || f.startsWith(`${id}-`));
  if (found.length !== 1) throw new Error(`${guard.id} has ${found.length} folders under src/guards/: ${found.join(', ')}`);
  return found[0]!;
}

/** What `<folder>` and `<id>` stand for in a path of the walk-through. */
function pathFor(template: string, guard: Guard): string {
  return template.replace(/<folder>/g, folderOf(guard)).replace(/<id>/g, guard.id.toLowerCase());
}

/** Whether a path exists; a `*` in its last part matches any file name part. */
function holds(path: string): boolean {
  if (!path.includes('*')) return existsSync(join(ROOT, path));
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash);
  const name = new RegExp(
    `^${path
      .slice(slash + 1)
      .replace(/[.]/g, '\\.')
      .replace(/\*/g, '[^/]*')}$`,
  );
  return existsSync(join(ROOT, dir)) && list(dir).some((f) => name.test(f));
}

/** The walk-through of CONTRIBUTING.md: from its heading to the next heading of its level. */
function walkthrough(): string {
  const text = read('CONTRIBUTING.md');
  const start = text.indexOf('## Walkthrough: adding a guard');
  if (start < 0) throw new Error('CONTRIBUTING.md has no "Walkthrough: adding a guard"');
  const next = text.indexOf('\n## ', start + 3);
  return next < 0 ? text.slice(start) : text.slice(start, next);
}

/** The per-guard paths the walk-through names: code spans with `<folder>` or `<id>` in them. */
function walkthroughPaths(): string[] {
  return [...new Set([...walkthrough().matchAll(/`([^`\s]*\/[^`\s]*<(?:folder|id)>[^`\s]*)`/g)].map((m) => m[1]!))];
}

/** The config's sections and what its settings say they are for (from the generated JSON schema). */
const SCHEMA = JSON.parse(read('schemas/slopgate.schema.json')) as {
  properties: Record<string, { properties?: Record<string, { description?: string }> }>;
};

describe('every registered guard owns its folder, page, tests, config entry and recipes', () => {
  it.each(GUARDS.map((g) => [g.id, g] as const))('%s', (_id, guard) => {
    const folder = folderOf(guard);
    // The folder: index.ts exports this very guard object, which says what it needs; a README beside it.
    expect(Object.values(INDEX.get(folder) ?? {})).toContain(guard);
    expect(guard.needs, `${guard.id} declares no needs`).toBeDefined();
    const readme = read(`src/guards/${folder}/README.md`);
    // Its page, named after the folder; page and README link each other, and the guard table links the page.
    const page = read(`docs/guards/${folder}.md`);
    expect(page).toContain(`](../../src/guards/${folder}/README.md)`);
    expect(readme).toContain(`](../../../docs/guards/${folder}.md)`);
    expect(read('docs/guards.md')).toContain(`](guards/${folder}.md)`);
    // Its tests, each importing from its folder or naming it (some go through the CLI).
    const id = guard.id.toLowerCase();
    const tests = list('test/guards').filter((f) => f === `${id}.test.ts` || f.startsWith(`${id}-`));
    expect(tests.length, `${guard.id} has no test file under test/guards/`).toBeGreaterThan(0);
    const mark = new RegExp(`src/guards/${folder}/|\\b${guard.id === 'psi' ? 'Ψ' : guard.id}\\b`);
    for (const t of tests) expect(read(`test/guards/${t}`), `${t} names neither ${guard.id} nor its folder`).toMatch(mark);
    // Its config entry: guards.disable takes its id, and the sections it names hold its options.
    expect(parseConfigText(`guards:\n  disable: [${guard.id}]\n`, '.github/slopgate.yml').guards.disable).toEqual([guard.id]);
    const sections = guard.needs?.config ?? [];
    for (const s of sections) expect(Object.keys(SCHEMA.properties), s).toContain(s);
    // Its recipes (src/refiner/recipes/<id>-*.ts, where the refiner's types are): its README names them.
    for (const r of list('src/refiner/recipes').filter((f) => f.startsWith(`${id}-`)))
      expect(readme, `${folder}/README.md does not name ${r}`).toContain(`src/refiner/recipes/${r}`);
  });

  it("names, in each guard's needs, the config sections whose settings say they are its, and those its code reads", () => {
    const declared = new Map(GUARDS.map((g) => [g.id, [...(g.needs?.config ?? [])].sort()]));
    const owned = new Map<string, Set<string>>(GUARDS.map((g) => [g.id, new Set()]));
    for (const [section, { properties = {} }] of Object.entries(SCHEMA.properties)) {
      if (owned.has(section)) owned.get(section)!.add(section); // a section named after its guard (psi)
      for (const { description = '' } of Object.values(properties)) {
        const owner = /^(G\d+|psi): /.exec(description)?.[1];
        if (owner) owned.get(owner)!.add(section);
      }
    }
    const sections = new Set(Object.keys(SCHEMA.properties).filter((s) => s !== 'guards'));
    for (const guard of GUARDS) {
      const folder = folderOf(guard);
      const code = list(`src/guards/${folder}`)
        .filter((f) => f.endsWith('.ts'))
        .map((f) => read(`src/guards/${folder}/${f}`))
        .join('\n');
      const reads = [...code.matchAll(/\bconfig\.(\w+)/g)].map((m) => m[1]!).filter((s) => sections.has(s));
      for (const s of [...owned.get(guard.id)!, ...reads]) expect(declared.get(guard.id), `${guard.id} and ${s}`).toContain(s);
    }
  });

  it('names in needs.services only services its code reads, so that none keeps it in the main process for nothing', () => {
    for (const guard of GUARDS) {
      const folder = folderOf(guard);
      const own = list(`src/guards/${folder}`)
        .filter((f) => f.endsWith('.ts'))
        .map((f) => read(`src/guards/${folder}/${f}`));
      // The guard's code and the guard-folder modules it imports (../shared/, another guard's helper).
      const imported = own.flatMap((text) =>
        [...text.matchAll(/from '\.\.\/([\w-]+)\/([\w-]+)\.js'/g)].map((m) => read(`src/guards/${m[1]}/${m[2]}.ts`)),
      );
      const code = [...own, ...imported].join('\n');
      for (const name of guard.needs?.services ?? []) {
        const reading = new RegExp(`services\\??\\.${name}\\b|\\{[^}]*\\b${name}\\b[^}]*\\}\\s*=\\s*ctx\\.services`);
        expect(reading.test(code), `${guard.id} names the service ${name} but its code does not read it`).toBe(true);
      }
    }
  });

  it('leaves no folder, page, test file or recipe that is no registered guard’s', () => {
    const folders = new Set(GUARDS.map(folderOf));
    expect(FOLDERS.filter((f) => !folders.has(f))).toEqual([]);
    expect(list('docs/guards').filter((p) => !folders.has(p.replace(/\.md$/, '')))).toEqual([]);
    const ids = GUARDS.map((g) => g.id.toLowerCase());
    const owner = (file: string) => ids.some((id) => file === `${id}.test.ts` || file.startsWith(`${id}-`));
    expect(list('test/guards').filter((f) => f.endsWith('.test.ts') && !NOT_A_GUARDS_TEST.has(f) && !owner(f))).toEqual([]);
    expect(list('src/refiner/recipes').filter((f) => /^[a-z]+\d*-/.test(f) && !owner(f) && f !== 'line-suggestion.ts')).toEqual([]);
  });
});

describe("CONTRIBUTING's walk-through of adding a guard", () => {
  it('names the paths a guard has, and every existing guard has them', () => {
    const paths = walkthroughPaths();
    expect(paths).toEqual(
      expect.arrayContaining(['src/guards/<folder>/index.ts', 'src/guards/<folder>/README.md', 'docs/guards/<folder>.md']),
    );
    const missing = GUARDS.flatMap((g) => paths.map((p) => pathFor(p, g)).filter((p) => !holds(p)));
    expect(missing).toEqual([]);
  });

  it('shows the one registry line every existing guard has in src/guards/index.ts, and its id in src/core/guard-ids.ts', () => {
    const text = walkthrough();
    expect(text).toContain("import { g18 } from './g18-debugger/index.js';");
    expect(text).toMatch(/G18: g18/);
    const registry = read('src/guards/index.ts');
    const ids = read('src/core/guard-ids.ts');
    for (const guard of GUARDS) {
      const name = Object.entries(INDEX.get(folderOf(guard)) ?? {}).find(([, v]) => v === guard)?.[0];
      expect(registry, guard.id).toContain(`import { ${name} } from './${folderOf(guard)}/index.js';`);
      expect(registry, guard.id).toMatch(new RegExp(`\\b${guard.id}: ${name},|\\b${name},`));
      expect(ids, guard.id).toContain(`id: '${guard.id}'`);
    }
  });
});
