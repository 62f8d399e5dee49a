import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

type Files = Record<string, string | null>;

const pyproject = (version: string) => `[project]
name = "inventory"
version = "${version}"
requires-python = ">=3.9"
dependencies = []

[tool.pytest.ini_options]
testpaths = ["tests"]
`;

const BASE: Files = {
  'pyproject.toml': pyproject('0.3.0'),
  'ruff.toml': 'line-length = 100\ntarget-version = "py39"\n',
  'inventory/__init__.py': '',
  'inventory/db.py': `import sqlite3


def connect(path=":memory:"):
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


def init_schema(conn):
    conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, qty INTEGER)")


def seed(conn):
    conn.executemany("INSERT INTO items (name, qty) VALUES (?, ?)", [("bolt", 40), ("nut", 12)])


def get_item(conn, item_id):
    row = conn.execute("SELECT id, name, qty FROM items WHERE id = ?", (item_id,)).fetchone()
    return dict(row) if row else None
`,
  'tests/test_db.py': `from inventory.db import connect, init_schema, seed, get_item


def test_get_item_returns_a_dict():
    conn = connect()
    init_schema(conn)
    seed(conn)
    assert get_item(conn, 1) == {"id": 1, "name": "bolt", "qty": 40}


def test_missing_item_is_none():
    conn = connect()
    init_schema(conn)
    assert get_item(conn, 99) is None
`,
  'tests/test_connect.py': `from inventory.db import connect


def test_rows_can_be_read_by_column_name():
    row = connect().execute("SELECT 1 AS qty").fetchone()
    assert row["qty"] == 1
`,
  'README.md': `# inventory

A tiny SQLite-backed inventory library.

## Usage

\`\`\`python
from inventory.db import connect, init_schema, seed, get_item

conn = connect("stock.db")
init_schema(conn)
seed(conn)
print(get_item(conn, 1))
\`\`\`

## Development

\`\`\`bash
python3 -m pytest -q
\`\`\`

See [the usage guide](docs/usage.md) for more.
`,
  'docs/usage.md': '# Usage guide\n\nOpen a connection with `connect()`, create the tables with `init_schema()`.\n',
};

/** The sloppy PR, one commit each, as an LLM agent might have produced it. */
const PR_COMMITS: { message: string; files: Files }[] = [
  {
    message: 'Refactor db module for clarity',
    files: {
      'inventory/db.py': `import sqlite3


def connect(path=":memory:"):
    return sqlite3.connect(path)


# init_schema and seed remain unchanged


def get_item(conn, item_id):
    row = conn.execute("SELECT id, name, qty FROM items WHERE id = ?", (item_id,)).fetchone()
    return dict(row) if row else None
`,
    },
  },
  {
    message: 'Bump version and lint settings',
    files: {
      'pyproject.toml': pyproject('0.4.0'),
      'ruff.toml': 'line-length = 100\ntarget-version = py310\n',
    },
  },
  {
    message: 'Polish README',
    files: {
      'tests/test_connect.py': `from inventory.db import connect


def test_rows_can_be_read_by_column_name():
    row = connect().execute("SELECT 1 AS qty").fetchone()
    assert row["qty"] == 1
`,
      'README.md': `# inventory

A tiny SQLite-backed inventory library with a modern React and Redux dashboard.

## Usage

Import the module, open a connection, create the schema, seed it and query items by id.

## Development

\`\`\`bash
pytest -q\\n\\nflake8 .
\`\`\`

See [the API reference](docs/api.md) for more.
`,
    },
  },
];

function write(dir: string, files: Files): void {
  for (const [path, content] of Object.entries(files)) {
    const abs = join(dir, path);
    if (content === null) {
      rmSync(abs, { force: true });
      continue;
    }
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

function git(dir: string, ...args: string[]): void {
  execFileSync('git', args, {
    cwd: dir,
    stdio: 'ignore',
    env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' },
  });
}

/** Builds the demo repository in a temp dir: `main` holds a healthy project, `slop-pr` the sloppy PR. */
export function buildDemoRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-demo-'));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 'demo@slopgate.invalid');
  git(dir, 'config', 'user.name', 'slopgate demo');
  git(dir, 'config', 'commit.gpgsign', 'false');
  write(dir, BASE);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'inventory 0.3.0');
  git(dir, 'checkout', '-q', '-b', 'slop-pr');
  for (const c of PR_COMMITS) {
    write(dir, c.files);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', c.message);
  }
  return dir;
}
