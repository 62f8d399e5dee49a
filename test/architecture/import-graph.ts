import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** One import of one source file: the specifier as written and, for relative ones, the file it resolves to. */
export interface ImportEdge {
  from: string;
  specifier: string;
  /** Repository-relative path of the imported file (relative specifiers only); undefined for packages. */
  target?: string;
}

/** Every .ts file under `dir` (repository-relative, forward slashes), sorted. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string): void => {
    for (const name of readdirSync(abs).sort()) {
      const p = join(abs, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(toPosix(relative(root, p)));
    }
  };
  if (existsSync(join(root, dir))) walk(join(root, dir));
  return out;
}

/**
 * The imports of one file as TypeScript's own pre-processor sees them: `import`, `import type`, `export … from`,
 * and `import('literal')`. Relative specifiers are resolved the NodeNext way this project writes them
 * (`./x.js` is `./x.ts`, a folder is its `index.ts`).
 */
export function importsOf(root: string, file: string): ImportEdge[] {
  const text = readFileSync(join(root, file), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map(({ fileName: specifier }) => {
    if (!specifier.startsWith('.')) return { from: file, specifier };
    const target = resolveRelative(root, file, specifier);
    return target === undefined ? { from: file, specifier } : { from: file, specifier, target };
  });
}

function resolveRelative(root: string, file: string, specifier: string): string | undefined {
  const base = resolve(root, dirname(file), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')];
  const hit = candidates.find((c) => c.endsWith('.ts') && existsSync(c) && statSync(c).isFile());
  return hit === undefined ? undefined : toPosix(relative(root, hit));
}

/** The top folder of a file under src/ ('core' for src/core/x.ts, 'cli.ts' for src/cli.ts). */
export function srcFolder(file: string): string {
  return file.split('/')[1] ?? '';
}

/** Every elementary cycle reachable by a DFS over relative imports, each listed once from its smallest file. */
export function findCycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (e.target === undefined || e.target === e.from) continue;
    const list = next.get(e.from) ?? [];
    if (!list.includes(e.target)) list.push(e.target);
    next.set(e.from, list);
  }
  const seen = new Set<string>();
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const to of next.get(node) ?? []) {
      if (state.get(to) === 'open') {
        const cycle = stack.slice(stack.indexOf(to));
        const key = canonical(cycle).join(' -> ');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(canonical(cycle));
        }
      } else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...next.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** A cycle rotated to start at its smallest file, so the same cycle always prints the same way. */
function canonical(cycle: string[]): string[] {
  const smallest = [...cycle].sort()[0];
  const at = smallest === undefined ? 0 : cycle.indexOf(smallest);
  return [...cycle.slice(at), ...cycle.slice(0, at)];
}

function toPosix(p: string): string {
  return p.split(sep).join('/');
}

/**
 * What loading `file` loads before any of its code runs: the files and packages reached through its static
 * imports and re-exports, transitively. `import type`, `export type` and imports of types only are erased by the
 * compiler, and `import()` runs only when the code reaches it, so neither counts. Files are repository-relative;
 * packages are the specifiers as written (`node:fs`, `zod`).
 */
export function loadedAtStart(root: string, file: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (f: string): void => {
    if (files.has(f)) return;
    files.add(f);
    for (const specifier of runtimeSpecifiers(readFileSync(join(root, f), 'utf8'))) {
      if (!specifier.startsWith('.')) packages.add(specifier);
      else {
        const target = resolveRelative(root, f, specifier);
        if (target === undefined) throw new Error(`${f}: cannot resolve '${specifier}'`);
        visit(target);
      }
    }
  };
  visit(file);
  return { files: [...files].sort(), packages: [...packages].sort() };
}

/** The specifiers of the imports and re-exports of a module that load at run time (see {@link loadedAtStart}). */
function runtimeSpecifiers(text: string): string[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      if (clause?.phaseModifier === ts.SyntaxKind.TypeKeyword) continue;
      const bindings = clause?.namedBindings;
      const onlyTypes =
        clause !== undefined &&
        clause.name === undefined &&
        bindings !== undefined &&
        ts.isNamedImports(bindings) &&
        bindings.elements.length > 0 &&
        bindings.elements.every((e) => e.isTypeOnly);
      if (!onlyTypes) out.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !node.isTypeOnly) {
      const clause = node.exportClause;
      const onlyTypes = clause !== undefined && ts.isNamedExports(clause) && clause.elements.every((e) => e.isTypeOnly);
      if (!onlyTypes) out.push(node.moduleSpecifier.text);
    }
  }
  return out;
}
