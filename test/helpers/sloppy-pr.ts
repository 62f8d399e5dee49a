import { prRepo, type TestRepo } from './git-repo.js';

/**
 * A small pull request with two blocking defects that need no toolchain to find: `init_schema` and
 * `seed` deleted behind a "remain unchanged" comment while `app/main.py` still calls them (G7), and a
 * JSON file that no longer parses (G2). Compare `main` → `pr`.
 */
export function sloppyPr(): TestRepo {
  return prRepo(
    {
      'app/db.py':
        'import sqlite3\n\n\ndef connect(path):\n    return sqlite3.connect(path)\n\n\n' +
        'def init_schema(conn):\n    conn.execute("create table t (x int)")\n\n\n' +
        'def seed(conn):\n    conn.execute("insert into t values (1)")\n',
      'app/main.py': 'from app.db import connect, init_schema, seed\n\nconn = connect(":memory:")\ninit_schema(conn)\nseed(conn)\n',
      'config.json': '{"a": 1}\n',
    },
    {
      'app/db.py':
        'import sqlite3\n\n\ndef connect(path):\n    return sqlite3.connect(path, timeout=5)\n\n# init_schema and seed remain unchanged\n',
      'config.json': '{"a": 1,,}\n',
    },
  );
}
