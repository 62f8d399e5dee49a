import { describe, expect, it } from 'vitest';
import { g7 } from '../../../src/guards/g7-dropped-definitions/index.js';
import { g7RestoreDefinitions as recipe } from '../../../src/refiner/recipes/g7-restore-definitions.js';
import { applyAndRerun, contextOf, fixOne, reproduce } from './harness.js';

const DB_PY = `import sqlite3


def get_conn(path):
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


def init_schema(conn):
    conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    conn.commit()


def seed(conn):
    conn.executemany("INSERT INTO users (name) VALUES (?)", [("ada",), ("bob",)])
    conn.commit()


def find_user(conn, name):
    return conn.execute("SELECT * FROM users WHERE name = ?", (name,)).fetchone()
`;

const CLI_PY = `from app.db import get_conn, init_schema, seed


def main():
    conn = get_conn("x.db")
    init_schema(conn)
    seed(conn)
`;

// The LLM rewrote the whole file for a change to find_user and left a comment where two helpers were.
const HEAD_PY = `import sqlite3


def get_conn(path):
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


# init_schema and seed remain unchanged


def find_user(conn, name):
    row = conn.execute("SELECT * FROM users WHERE name = ?", (name,)).fetchone()
    return dict(row) if row else None
`;

describe('recipe g7-restore-definitions', () => {
  it('puts helpers dropped behind "# init_schema and seed remain unchanged" back in place of the comment', async () => {
    const c = await reproduce(g7, { 'app/db.py': DB_PY, 'app/cli.py': CLI_PY }, { 'app/db.py': HEAD_PY });
    expect(c.findings).toHaveLength(1);
    const { fix } = await fixOne(c, recipe);
    const helpers = DB_PY.slice(DB_PY.indexOf('def init_schema'), DB_PY.indexOf('\n\n\ndef find_user') + 1);
    const expected = HEAD_PY.replace('# init_schema and seed remain unchanged\n', helpers);
    expect(fix.files).toEqual([{ path: 'app/db.py', content: expected }]);
    expect(fix.summary).toContain('`init_schema`, `seed`');
    // one contiguous replacement: the comment line becomes the two helpers
    expect(fix.suggestion).toMatchObject({ path: 'app/db.py', startLine: 10, endLine: 10 });
    expect(await applyAndRerun(c, g7, fix)).toEqual([]);
  });

  it('re-inserts a dropped helper after its base neighbour when no comment stands in for it', async () => {
    const head = DB_PY.replace(/def seed\(conn\):[\s\S]*?conn\.commit\(\)\n\n\n/, '');
    const c = await reproduce(g7, { 'app/db.py': DB_PY, 'app/cli.py': CLI_PY }, { 'app/db.py': head });
    expect(c.findings.map((f) => f.evidence?.dropped)).toEqual([[{ name: 'seed', kind: 'function', baseLine: 15, baseEndLine: 17 }]]);
    const { fix } = await fixOne(c, recipe);
    expect(fix.files[0]!.content).toBe(DB_PY);
    expect(await applyAndRerun(c, g7, fix)).toEqual([]);
  });

  it('restores a dropped TypeScript function that another module still imports', async () => {
    const format = '/** Formats a number. */\nexport function format(n: number): string {\n  return String(n);\n}\n';
    const twice = 'export function twice(n: number): number {\n  return n * 2;\n}\n';
    const base = `export function parse(s: string): number {\n  return Number(s);\n}\n\n${format}\n${twice}`;
    const head = `export function parse(s: string): number {\n  return Number.parseInt(s, 10);\n}\n\n// ... existing code ...\n\n${twice}`;
    const main = "import { format } from './num';\nconsole.log(format(1));\n";
    const c = await reproduce(g7, { 'src/num.ts': base, 'src/main.ts': main }, { 'src/num.ts': head });
    expect(c.findings).toHaveLength(1);
    const { fix } = await fixOne(c, recipe);
    expect(fix.files[0]!.content).toBe(head.replace('// ... existing code ...\n', format));
    expect(await applyAndRerun(c, g7, fix)).toEqual([]);
  });

  it("replaces a placeholder glued to the next definition instead of taking it for that definition's comment", async () => {
    const head = HEAD_PY.replace('# init_schema and seed remain unchanged\n\n\n', '# init_schema and seed remain unchanged\n');
    const c = await reproduce(g7, { 'app/db.py': DB_PY, 'app/cli.py': CLI_PY }, { 'app/db.py': head });
    const { fix } = await fixOne(c, recipe);
    expect(fix.files[0]!.content).not.toContain('remain unchanged');
    expect(fix.files[0]!.content).toContain('    conn.commit()\ndef find_user(conn, name):');
    expect(await applyAndRerun(c, g7, fix)).toEqual([]);
  });

  it('applies two findings of one file one after the other; the second, on changed content, has no suggestion', async () => {
    const head = `import sqlite3


def get_conn(path):
    return sqlite3.connect(path)


# init_schema remains unchanged


def seed(conn):
    conn.executemany("INSERT INTO users (name) VALUES (?)", [("ada",), ("bob",)])
    conn.commit()


# find_user is the same as before
`;
    const cli = `${CLI_PY}    find_user(conn, "ada")\n`.replace('seed\n', 'seed, find_user\n');
    const c = await reproduce(g7, { 'app/db.py': DB_PY, 'app/cli.py': cli }, { 'app/db.py': head });
    expect(c.findings).toHaveLength(2);
    const first = await recipe.fix(c.findings[0]!, contextOf(c.repo));
    expect(first?.suggestion).toBeDefined();
    const second = await recipe.fix(c.findings[1]!, contextOf(c.repo, { 'app/db.py': first!.files[0]!.content }));
    expect(second).not.toBeNull();
    expect(second!.suggestion).toBeUndefined();
    const fixed = second!.files[0]!.content;
    expect(fixed).not.toMatch(/unchanged|same as before/);
    expect(fixed.indexOf('def init_schema')).toBeLessThan(fixed.indexOf('def seed'));
    expect(fixed.indexOf('def seed')).toBeLessThan(fixed.indexOf('def find_user'));
    expect(await applyAndRerun(c, g7, second!)).toEqual([]);
  });

  it('returns null when the current content already defines the names again (an earlier fix restored them)', async () => {
    const c = await reproduce(g7, { 'app/db.py': DB_PY, 'app/cli.py': CLI_PY }, { 'app/db.py': HEAD_PY });
    const finding = c.findings[0]!;
    expect(recipe.handles(finding)).toBe(true);
    expect(await recipe.fix(finding, contextOf(c.repo, { 'app/db.py': DB_PY }))).toBeNull();
  });

  it('returns null when neither base neighbour of the dropped helper is left to place it by', async () => {
    const c = await reproduce(g7, { 'app/db.py': DB_PY, 'app/cli.py': CLI_PY }, { 'app/db.py': HEAD_PY });
    // the current content lost every other definition too: no position matches the base
    const bare = 'import sqlite3\n\n# init_schema and seed remain unchanged\n';
    expect(await recipe.fix(c.findings[0]!, contextOf(c.repo, { 'app/db.py': bare }))).toBeNull();
  });

  it('does not handle the public-removal risk (nothing uses the definition any more)', async () => {
    const head = DB_PY.replace(/def seed\(conn\):[\s\S]*?conn\.commit\(\)\n\n\n/, '');
    const c = await reproduce(g7, { 'app/db.py': DB_PY }, { 'app/db.py': head });
    expect(c.findings).toHaveLength(1);
    expect(c.findings[0]!.severity).toBe('risk');
    expect(recipe.handles(c.findings[0]!)).toBe(false);
  });
});
