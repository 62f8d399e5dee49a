import { describe, expect, it } from 'vitest';
import { g7 } from '../../src/guards/g7-dropped-definitions/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';

const run = async (base: Record<string, string>, head: Record<string, string | null>) =>
  findingsOf(await gate(prRepo(base, head), [g7]), 'G7');

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

describe('G7 top-level definitions kept', () => {
  it('rung-3 v14: helpers deleted from a Python module behind "# init_schema and seed remain unchanged" fail, quoting the comment', async () => {
    const head = `import sqlite3


def get_conn(path):
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


# init_schema and seed remain unchanged


def find_user(conn, name):
    row = conn.execute("SELECT * FROM users WHERE name = ?", (name,)).fetchone()
    return dict(row) if row else None
`;
    const found = await run({ 'app/db.py': DB_PY }, { 'app/db.py': head });
    expect(found).toHaveLength(1);
    const f = found[0]!;
    expect(f.category).toBe('toplevel-dropped');
    expect(f.severity).toBe('fail');
    expect(f.line).toBe(10); // the lying comment, on the diff
    expect(f.message).toContain('`init_schema` (function, base line 10)');
    expect(f.message).toContain('`seed` (function, base line 15)');
    expect(f.message).toContain('line 10: "# init_schema and seed remain unchanged"');
    expect(f.remediation).toMatch(/^Restore `init_schema` and `seed` in app\/db\.py/);
    expect(f.evidence).toMatchObject({
      dropped: [
        { name: 'init_schema', baseLine: 10 },
        { name: 'seed', baseLine: 15 },
      ],
    });
  });

  it('rung-3 O1: a pytest fixture still requested by a test fails; a removed test is left to G8', async () => {
    const base = `import pytest
from app.db import get_conn


@pytest.fixture
def db(tmp_path):
    return get_conn(tmp_path / "t.db")


def test_connect(db):
    assert db is not None


def test_find_known_user(db):
    assert db.execute("select 1").fetchone()[0] == 1
`;
    const head = `import pytest
from app.db import get_conn


def test_connect(db):
    assert db is not None
`;
    const found = await run({ 'tests/test_db.py': base }, { 'tests/test_db.py': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.severity).toBe('fail');
    expect(found[0]!.message).toContain('`db` (function, base line 5)');
    expect(found[0]!.message).toContain('tests/test_db.py:5');
    expect(found[0]!.message).not.toContain('test_find_known_user');
    expect(found[0]!.line).toBeGreaterThanOrEqual(1);
    expect(found[0]!.line).toBeLessThanOrEqual(6);
  });

  it('a fixture and a test removed together with every use pass (the removed test is G8’s tests-removed)', async () => {
    const base = `import pytest\nfrom app.db import get_conn\n\n\n@pytest.fixture\ndef db(tmp_path):\n    return get_conn(tmp_path / "t.db")\n\n\ndef test_connect(db):\n    assert db is not None\n\n\ndef test_find_known_user(db):\n    assert db.execute("select 1").fetchone()[0] == 1\n`;
    const head = `import pytest\nfrom app.db import get_conn\n\n\ndef test_connect(tmp_path):\n    assert get_conn(tmp_path / "t.db") is not None\n`;
    expect(await run({ 'tests/test_db.py': base }, { 'tests/test_db.py': head })).toEqual([]);
  });

  it('a JS export removed while another module still imports it fails, citing the import', async () => {
    const base = `export function slugify(s) {\n  return s.toLowerCase().replace(/\\s+/g, '-');\n}\n\nexport const MAX_LEN = 80;\n\nexport default function render(x) {\n  return String(x);\n}\n`;
    const head = `export function slugify(s) {\n  return s.trim().toLowerCase().replace(/\\s+/g, '-');\n}\n\nexport default function render(x) {\n  return String(x);\n}\n`;
    const user = `import {\n  slugify,\n  MAX_LEN,\n} from '../text.js';\n\nexport const short = (s) => slugify(s).slice(0, MAX_LEN);\n`;
    const found = await run({ 'src/text.js': base, 'src/ui/title.js': user }, { 'src/text.js': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.severity).toBe('fail');
    expect(found[0]!.message).toContain('`MAX_LEN` (constant, base line 5)');
    expect(found[0]!.message).toContain('src/ui/title.js:1');
    expect(found[0]!.message).not.toContain('`slugify`');
  });

  it('a JS export removed with every use is a risk (public API), not a fail', async () => {
    const base = `export function slugify(s) {\n  return s.toLowerCase();\n}\n\nexport const MAX_LEN = 80;\n`;
    const head = `export function slugify(s) {\n  return s.toLowerCase();\n}\n`;
    const found = await run({ 'src/text.js': base }, { 'src/text.js': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.severity).toBe('risk');
    expect(found[0]!.message).toContain('no longer defines the public `MAX_LEN`');
  });

  it('a Go func dropped while another package still calls it fails; a changed method body passes', async () => {
    const base = `package store\n\ntype Store struct{ items []string }\n\nfunc (s *Store) Add(x string) { s.items = append(s.items, x) }\n\nfunc (s *Store) Len() int { return len(s.items) }\n\nfunc New() *Store { return &Store{} }\n`;
    const head = `package store\n\ntype Store struct{ items []string }\n\nfunc (s *Store) Add(x string) {\n\tif x != "" {\n\t\ts.items = append(s.items, x)\n\t}\n}\n\nfunc (s *Store) Len() int { return len(s.items) }\n`;
    const main = `package main\n\nimport "example.com/app/store"\n\nfunc main() { s := store.New(); s.Add("x") }\n`;
    const found = await run({ 'store/store.go': base, 'cmd/app/main.go': main }, { 'store/store.go': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.severity).toBe('fail');
    expect(found[0]!.message).toContain('`New` (function, base line 9)');
    expect(found[0]!.message).toContain('cmd/app/main.go:5');
    expect(found[0]!.message).not.toContain('Store.Add');
  });

  it('a pub Rust fn and an inherent pub impl method removed with all uses are risks named `parse` and `Config::validate`', async () => {
    const base = `pub struct Config { pub name: String }\n\nimpl Config {\n    pub fn validate(&self) -> bool { !self.name.is_empty() }\n    pub fn name(&self) -> &str { &self.name }\n}\n\npub fn parse(s: &str) -> Config { Config { name: s.to_string() } }\n`;
    const head = `pub struct Config { pub name: String }\n\nimpl Config {\n    pub fn name(&self) -> &str { &self.name }\n}\n`;
    const found = await run({ 'src/config.rs': base }, { 'src/config.rs': head });
    const text = found.map((f) => f.message).join('\n');
    expect(found.every((f) => f.severity === 'risk')).toBe(true); // pub, and nothing in the crate uses them
    expect(text).toContain('`Config::validate` (method, base line 4)');
    expect(text).toContain('`parse` (function, base line 8)');
  });

  it('a Java method dropped from a class fails as `UserService.delete`', async () => {
    const base = `package app;\n\npublic class UserService {\n    public User find(long id) { return repo.get(id); }\n\n    public void delete(long id) { repo.remove(id); }\n}\n`;
    const head = `package app;\n\npublic class UserService {\n    public User find(long id) {\n        return repo.get(id);\n    }\n}\n`;
    const found = await run({ 'src/main/java/app/UserService.java': base }, { 'src/main/java/app/UserService.java': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('`UserService.delete` (method, base line 6)');
  });

  it('a whole Java class removed from a file is one name, not the class plus each of its methods', async () => {
    const base = `package app;\n\nclass A { void a() {} }\n\nclass Helper {\n    void one() {}\n    void two() {}\n}\n`;
    const head = `package app;\n\nclass A { void a() {} }\n`;
    const user = `package app;\n\nclass B {\n    void b() { new Helper().one(); }\n}\n`;
    const found = await run({ 'src/A.java': base, 'src/B.java': user }, { 'src/A.java': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.evidence).toMatchObject({ dropped: [{ name: 'Helper' }] });
  });

  it('a function renamed with the same body is a risk ("renamed to …"), not a fail', async () => {
    const base = `def load_cfg(path):\n    with open(path) as fh:\n        data = fh.read()\n    return parse(data)\n\n\ndef parse(text):\n    return dict(line.split("=", 1) for line in text.splitlines() if line)\n`;
    const head = base.replace('def load_cfg(path):', 'def load_config(path):');
    const found = await run({ 'app/config.py': base }, { 'app/config.py': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.severity).toBe('risk');
    expect(found[0]!.line).toBe(1);
    expect(found[0]!.message).toContain('looks renamed to `load_config`');
    expect(found[0]!.evidence).toMatchObject({ renamedTo: 'load_config', similarity: 1 });
  });

  it('a function moved to a new module in the same PR passes (module split)', async () => {
    const base = `def parse(text):\n    return text.split(",")\n\n\ndef render(items):\n    return ", ".join(items)\n`;
    const found = await run(
      { 'app/core.py': base },
      {
        'app/core.py': `from app.render import render\n\n\ndef parse(text):\n    return text.split(",")\n`,
        'app/render.py': `def render(items):\n    return ", ".join(sorted(items))\n`,
      },
    );
    expect(found).toEqual([]);
  });

  it('legitimate consolidation passes: duplicate helpers replaced by one shared module (moved) or an import of an unchanged one', async () => {
    const slug = `def slugify(s):\n    return s.lower().replace(" ", "-")\n`;
    const found = await run(
      {
        'app/posts.py': `${slug}\n\ndef post_url(t):\n    return "/p/" + slugify(t)\n`,
        'app/tags.py': `import re\n\n\ndef clean(t):\n    return re.sub(r"\\W", "", t)\n\n\ndef tag_url(t):\n    return "/t/" + clean(t)\n`,
        'app/text.py': `import re\n\n\ndef clean(t):\n    return re.sub(r"\\W", "", t)\n`,
      },
      {
        'app/posts.py': `from app.common import slugify\n\n\ndef post_url(t):\n    return "/p/" + slugify(t)\n`,
        'app/common.py': slug,
        'app/tags.py': `from app.text import clean\n\n\ndef tag_url(t):\n    return "/t/" + clean(t)\n`,
      },
    );
    expect(found).toEqual([]);
  });

  it('a head that does not parse reports only names that are gone from the text, not every definition', async () => {
    const base = `def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n\n\ndef gamma():\n    return 3\n`;
    // a broken edit in alpha (G2 reports the syntax error); gamma really is gone
    const head = `def alpha(:\n    return 1\n\n\ndef beta():\n    return 2\n`;
    const found = await run({ 'm.py': base, 'main.py': 'from m import alpha, gamma\n' }, { 'm.py': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.evidence).toMatchObject({ dropped: [{ name: 'gamma' }], headHasSyntaxError: true });
    expect(found[0]!.message).not.toContain('`alpha`');
  });

  it('a whole module deleted by the PR is not G7’s concern; added files and additions pass', async () => {
    const found = await run(
      { 'app/legacy.py': `def old():\n    return 0\n`, 'app/main.py': `def main():\n    pass\n` },
      { 'app/legacy.py': null, 'app/main.py': `def main():\n    pass\n\n\ndef extra():\n    pass\n`, 'app/new.py': `def n():\n    pass\n` },
    );
    expect(found).toEqual([]);
  });

  it('a TypeScript rewrite with "// ... existing helpers ..." quotes the placeholder and flags the dropped exports', async () => {
    const base = `export function a(): number {\n  return 1;\n}\n\nexport function b(): number {\n  return 2;\n}\n\nexport const c = (): number => 3;\n`;
    const head = `export function a(): number {\n  return 10;\n}\n\n// ... existing helpers ...\n`;
    const found = await run({ 'src/h.ts': base }, { 'src/h.ts': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('`b`');
    expect(found[0]!.message).toContain('`c`');
    expect(found[0]!.message).toContain('"// ... existing helpers ..."');
  });

  it('near-miss: a hand-written Rust `impl Default` replaced by #[derive(Default)] passes (trait impls are not tracked)', async () => {
    const base = `pub struct Opts { pub verbose: bool }\n\nimpl Default for Opts {\n    fn default() -> Self { Opts { verbose: false } }\n}\n\npub fn run(o: &Opts) -> bool { o.verbose }\n`;
    const head = `#[derive(Default)]\npub struct Opts { pub verbose: bool }\n\npub fn run(o: &Opts) -> bool { o.verbose }\n`;
    expect(await run({ 'src/lib.rs': base }, { 'src/lib.rs': head })).toEqual([]);
  });

  it('a file renamed by the PR that also lost a function is checked against its old version', async () => {
    const body = Array.from({ length: 12 }, (_, i) => `def f${i}(x):\n    return x + ${i}\n\n`).join('');
    const found = await run(
      { 'app/utils.py': body, 'app/main.py': 'from app.helpers import f1, f11\n' },
      { 'app/utils.py': null, 'app/helpers.py': body.replace('def f11(x):\n    return x + 11\n\n', '') },
    );
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toBe('app/helpers.py');
    expect(found[0]!.message).toContain('that app/utils.py has on the base branch: `f11` (function, base line 34)');
    expect(found[0]!.message).toContain('app/main.py:1');
  });

  it('two lost names used by one import line quote that line once (the demo PR shape)', async () => {
    const base = `def connect():\n    return 1\n\n\ndef init_schema(c):\n    return c\n\n\ndef seed(c):\n    return c\n`;
    const head = `def connect():\n    return 1\n`;
    const found = await run({ 'db.py': base, 'test_db.py': 'from db import connect, init_schema, seed\n' }, { 'db.py': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('`init_schema` (function, base line 5) and `seed` (function, base line 9)');
    expect(found[0]!.message.split('test_db.py:1 ').length - 1).toBe(1);
  });
});
