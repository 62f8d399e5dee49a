import { describe, expect, it } from 'vitest';
import { g4 } from '../../../src/guards/g4-imports/index.js';
import { g4RemoveImport as recipe } from '../../../src/refiner/recipes/g4-remove-import.js';
import { applyAndRerun, contextOf, fixOne, reproduce } from './harness.js';

const isImport = (f: { category: string }) => f.category === 'ungrounded-import';
const pkg = (deps: Record<string, string>) => JSON.stringify({ name: 'app', version: '1.0.0', dependencies: deps }, null, 2) + '\n';

const DB = 'import sqlite3\n\n\ndef connect(path):\n    return sqlite3.connect(path)\n';

describe('recipe g4-remove-import', () => {
  it('deletes a stray Python import of an undeclared package that nothing uses', async () => {
    const head = 'import sqlite3\nimport requests\n\n\ndef connect(path):\n    return sqlite3.connect(path, timeout=5)\n';
    const c = await reproduce(g4, { 'requirements.txt': 'attrs>=23\n', 'app/db.py': DB }, { 'app/db.py': head });
    expect(c.findings.filter(isImport)).toHaveLength(1);
    const { fix } = await fixOne(c, recipe, isImport);
    expect(fix.files[0]!.content).toBe('import sqlite3\n\n\ndef connect(path):\n    return sqlite3.connect(path, timeout=5)\n');
    expect(fix.suggestion).toEqual({ path: 'app/db.py', startLine: 1, endLine: 2, replacement: 'import sqlite3' });
    expect((await applyAndRerun(c, g4, fix)).filter(isImport)).toEqual([]);
  });

  it('deletes an unused TypeScript named import of an undeclared package', async () => {
    const head = "import { z } from 'zod';\nimport { debounce, throttle as t } from 'lodash-es';\n\nexport const schema = z.string();\n";
    const base = "import { z } from 'zod';\n\nexport const schema = z.string();\n";
    const c = await reproduce(g4, { 'package.json': pkg({ zod: '^3.22.0' }), 'src/schema.ts': base }, { 'src/schema.ts': head });
    expect(c.findings.filter(isImport)).toHaveLength(1);
    const { fix } = await fixOne(c, recipe, isImport);
    expect(fix.files[0]!.content).toBe("import { z } from 'zod';\n\nexport const schema = z.string();\n");
    expect((await applyAndRerun(c, g4, fix)).filter(isImport)).toEqual([]);
  });

  it('deletes an unused require of an undeclared package, and keeps one whose binding is used', async () => {
    const base = "const path = require('path');\n\nmodule.exports = (p) => path.resolve(p);\n";
    const head = "const path = require('path');\nconst chalk = require('chalk');\n\nmodule.exports = (p) => path.resolve(p);\n";
    const c = await reproduce(g4, { 'package.json': pkg({}), 'lib/resolve.js': base }, { 'lib/resolve.js': head });
    const { fix } = await fixOne(c, recipe, isImport);
    expect(fix.files[0]!.content).toBe(base);

    const used = head.replace('path.resolve(p)', 'chalk.green(path.resolve(p))');
    const d = await reproduce(g4, { 'package.json': pkg({}), 'lib/resolve.js': base }, { 'lib/resolve.js': used });
    expect(await recipe.fix(d.findings.find(isImport)!, contextOf(d.repo))).toBeNull();
  });

  it('deletes an unused Rust `use` of a crate Cargo.toml does not declare', async () => {
    const cargo = '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nserde = "1"\n';
    const base = 'use serde::Serialize;\n\n#[derive(Serialize)]\npub struct Point {\n    pub x: i32,\n}\n';
    const head = base.replace('use serde::Serialize;\n', 'use serde::Serialize;\nuse reqwest::{Client, Url as U};\n');
    const c = await reproduce(g4, { 'Cargo.toml': cargo, 'src/lib.rs': base }, { 'src/lib.rs': head });
    expect(c.findings.filter(isImport)).toHaveLength(1);
    const { fix } = await fixOne(c, recipe, isImport);
    expect(fix.files[0]!.content).toBe(base);
    expect((await applyAndRerun(c, g4, fix)).filter(isImport)).toEqual([]);
  });

  it('returns null when the imported module is used (the code really needs the package)', async () => {
    const head = 'import psycopg2\n\n\ndef connect(path):\n    return psycopg2.connect(path)\n';
    const c = await reproduce(g4, { 'requirements.txt': 'attrs>=23\n', 'app/db.py': DB }, { 'app/db.py': head });
    const finding = c.findings.find(isImport)!;
    expect(recipe.handles(finding)).toBe(true);
    expect(await recipe.fix(finding, contextOf(c.repo))).toBeNull();
  });

  it('returns null when a name it binds is only mentioned in __all__, and for an import kept for its side effect', async () => {
    const head = DB.replace('import sqlite3\n', 'import sqlite3\nfrom requests import Session\n\n__all__ = ["Session"]\n');
    const c = await reproduce(g4, { 'requirements.txt': 'attrs>=23\n', 'app/db.py': DB }, { 'app/db.py': head });
    expect(await recipe.fix(c.findings.find(isImport)!, contextOf(c.repo))).toBeNull();

    const ts = "import 'reflect-metadata';\n\nexport const x = 1;\n";
    const d = await reproduce(g4, { 'package.json': pkg({}), 'src/x.ts': 'export const x = 1;\n' }, { 'src/x.ts': ts });
    const sideEffect = d.findings.find(isImport)!;
    expect(sideEffect).toBeDefined();
    expect(await recipe.fix(sideEffect, contextOf(d.repo))).toBeNull();
  });
});
