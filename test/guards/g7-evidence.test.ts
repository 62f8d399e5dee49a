import { describe, expect, it } from 'vitest';
import { g7 } from '../../src/guards/g7-dropped-definitions/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';

const run = async (base: Record<string, string>, head: Record<string, string | null>) =>
  findingsOf(await gate(prRepo(base, head), [g7]), 'G7');

// A real shape from a merged PR: a private helper deleted while its two callers moved to Path.is_relative_to.
const PATHS_BASE = `from pathlib import Path


def _is_under(child, parent):
    try:
        child.relative_to(parent)
        return True
    except ValueError:
        return False


def in_project(p: Path, root: Path) -> bool:
    return _is_under(p.resolve(), root.resolve())


def in_cache(p: Path, cache: Path) -> bool:
    return _is_under(p, cache)
`;
const PATHS_HEAD = `from pathlib import Path


def in_project(p: Path, root: Path) -> bool:
    return p.resolve().is_relative_to(root.resolve())


def in_cache(p: Path, cache: Path) -> bool:
    return p.is_relative_to(cache)
`;

describe('G7 fails only on evidence that something breaks', () => {
  it('passes a private helper deleted together with both of its callers’ uses (moved to Path.is_relative_to)', async () => {
    expect(
      await run({ 'pkg/paths.py': PATHS_BASE, 'pkg/cli.py': 'from pkg.paths import in_project\n' }, { 'pkg/paths.py': PATHS_HEAD }),
    ).toEqual([]);
  });

  it('fails the same deletion when one caller still calls the helper', async () => {
    const head = PATHS_HEAD.replace('return p.is_relative_to(cache)', 'return _is_under(p, cache)');
    const found = await run({ 'pkg/paths.py': PATHS_BASE }, { 'pkg/paths.py': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.severity).toBe('fail');
    expect(found[0]!.message).toContain('pkg/paths.py:9');
    expect(found[0]!.evidence).toMatchObject({ references: [{ path: 'pkg/paths.py', line: 9, how: 'bare' }] });
  });

  it('fails a public function another module still imports (absolute and relative from-imports)', async () => {
    const base = `def load(path):\n    return open(path).read()\n\n\ndef save(path, text):\n    open(path, "w").write(text)\n`;
    const head = `def save(path, text):\n    open(path, "w").write(text)\n`;
    const found = await run(
      {
        'app/store.py': base,
        'app/api.py': 'from .store import (\n    load,\n    save,\n)\n',
        'scripts/dump.py': 'import app.store as store\n',
      },
      { 'app/store.py': head },
    );
    expect(found).toHaveLength(1);
    expect(found[0]!.severity).toBe('fail');
    expect(found[0]!.evidence).toMatchObject({ references: [{ path: 'app/api.py', line: 1, how: 'import' }] });
  });

  it('fails a module-qualified use (`store.load(...)`) in another file', async () => {
    const base = `def load(path):\n    return 1\n\n\ndef save(path):\n    return 2\n`;
    const head = `def save(path):\n    return 2\n`;
    const found = await run(
      { 'app/store.py': base, 'app/cli.py': 'from app import store\n\n\ndef main():\n    return store.load("x")\n' },
      { 'app/store.py': head },
    );
    expect(found.map((f) => f.severity)).toEqual(['fail']);
    expect(found[0]!.evidence).toMatchObject({ references: [{ path: 'app/cli.py', line: 5, how: 'qualified' }] });
  });

  it('a public function removed with every use is a risk; the same name used as a local variable is not a use', async () => {
    const base = `def path(name):\n    return "/" + name\n\n\ndef url(name):\n    path = "/u/" + name\n    return path\n`;
    const head = `def url(name):\n    path = "/u/" + name\n    return path\n`;
    const found = await run({ 'app/urls.py': base }, { 'app/urls.py': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.severity).toBe('risk');
    expect(found[0]!.evidence).toMatchObject({ removedPublic: [{ name: 'path' }] });
  });

  it('mentions in comments, strings and attribute accesses are not uses', async () => {
    const base = `def _norm(s):\n    return s.strip()\n\n\ndef clean(s):\n    return _norm(s)\n`;
    const head = `def clean(s):\n    # _norm was folded in here\n    log("_norm removed")\n    return s.strip() or obj._norm\n`;
    expect(await run({ 'app/text.py': base }, { 'app/text.py': head })).toEqual([]);
  });

  it('still fails on a placeholder comment naming the deleted definition even when nothing uses it', async () => {
    const head = PATHS_HEAD.replace('from pathlib import Path\n', 'from pathlib import Path\n\n# _is_under remains unchanged\n');
    const found = await run({ 'pkg/paths.py': PATHS_BASE }, { 'pkg/paths.py': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.severity).toBe('fail');
    expect(found[0]!.message).toContain('"# _is_under remains unchanged"');
  });

  it('a comment that merely trails off with "..." is not a placeholder', async () => {
    const head = PATHS_HEAD.replace('def in_cache', '# retried a few times...\ndef in_cache');
    expect(await run({ 'pkg/paths.py': PATHS_BASE }, { 'pkg/paths.py': head })).toEqual([]);
  });

  it('a renamed private function whose old name nobody uses passes; one still called by its old name fails', async () => {
    const base = `def _load_cfg(path):\n    with open(path) as fh:\n        data = fh.read()\n    return dict(x.split("=") for x in data.splitlines())\n\n\ndef run():\n    return _load_cfg("a")\n`;
    const renamed = base.replace('def _load_cfg(path):', 'def _load_config(path):');
    expect(
      await run({ 'app/cfg.py': base }, { 'app/cfg.py': renamed.replace('return _load_cfg("a")', 'return _load_config("a")') }),
    ).toEqual([]);
    const stale = await run({ 'app/cfg.py': base }, { 'app/cfg.py': renamed });
    expect(stale).toHaveLength(1);
    expect(stale[0]!.severity).toBe('fail');
    expect(stale[0]!.message).toContain('looks renamed to `_load_config`');
  });

  it('a definition moved to another module still fails when a caller imports it from the old one', async () => {
    const found = await run(
      {
        'app/core.py': `def parse(t):\n    return t.split()\n\n\ndef render(x):\n    return str(x)\n`,
        'app/main.py': 'from app.core import parse, render\n',
      },
      { 'app/core.py': `def parse(t):\n    return t.split()\n`, 'app/render.py': `def render(x):\n    return str(x)\n` },
    );
    expect(found.map((f) => f.severity)).toEqual(['fail']);
    expect(found[0]!.evidence).toMatchObject({ references: [{ path: 'app/main.py', how: 'import' }] });
  });
});

describe('G7 leaves removed tests to G8', () => {
  it('Python test functions and test classes removed or renamed raise nothing', async () => {
    const base = `def test_a():\n    assert 1\n\n\ndef test_b():\n    assert 2\n\n\nclass TestC:\n    def test_c(self):\n        assert 3\n`;
    const head = `def test_a_renamed():\n    assert 1 == 1\n`;
    expect(await run({ 'tests/test_x.py': base }, { 'tests/test_x.py': head })).toEqual([]);
  });

  it('Go Test/Benchmark functions in _test.go, Rust #[test] fns and a #[cfg(test)] mod, JUnit @Test methods raise nothing', async () => {
    const goBase = `package store\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {}\n\nfunc BenchmarkAdd(b *testing.B) {}\n\nfunc TestLen(t *testing.T) {}\n`;
    const goHead = `package store\n\nimport "testing"\n\nfunc TestLen(t *testing.T) {}\n`;
    const rsBase = `pub fn one() -> u8 { 1 }\n\n#[test]\nfn one_is_one() { assert_eq!(one(), 1); }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn works() {}\n}\n`;
    const rsHead = `pub fn one() -> u8 { 1 }\n`;
    const javaBase = `package app;\n\nimport org.junit.jupiter.api.Test;\n\nclass StoreTest {\n    @Test\n    void adds() {}\n\n    @Test\n    void removes() {}\n}\n`;
    const javaHead = `package app;\n\nimport org.junit.jupiter.api.Test;\n\nclass StoreTest {\n    @Test\n    void adds() {}\n}\n`;
    const found = await run(
      { 'store/store_test.go': goBase, 'src/lib.rs': rsBase, 'src/test/java/app/StoreTest.java': javaBase },
      { 'store/store_test.go': goHead, 'src/lib.rs': rsHead, 'src/test/java/app/StoreTest.java': javaHead },
    );
    expect(found).toEqual([]);
  });
});

describe('G7 private and public removals per language', () => {
  it('passes unexported Go, non-pub Rust and non-exported TS helpers removed with their uses; risks the exported ones', async () => {
    const goBase = `package store\n\nfunc helper() int { return 1 }\n\nfunc Exported() int { return 2 }\n\nfunc Keep() int { return 3 }\n`;
    const goHead = `package store\n\nfunc Keep() int { return 3 }\n`;
    const rsBase = `fn helper() -> u8 { 1 }\n\npub(crate) fn inner() -> u8 { 2 }\n\npub fn keep() -> u8 { 3 }\n`;
    const rsHead = `pub fn keep() -> u8 { 3 }\n`;
    const tsBase = `function helper(): number {\n  return 1;\n}\n\nconst local = (): number => 2;\n\nexport function keep(): number {\n  return 3;\n}\n`;
    const tsHead = `export function keep(): number {\n  return 3;\n}\n`;
    const found = await run(
      { 'store/store.go': goBase, 'src/lib.rs': rsBase, 'web/util.ts': tsBase },
      { 'store/store.go': goHead, 'src/lib.rs': rsHead, 'web/util.ts': tsHead },
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ path: 'store/store.go', severity: 'risk', evidence: { removedPublic: [{ name: 'Exported' }] } });
  });

  it('fails a Go function removed while another file of the same package calls it', async () => {
    const found = await run(
      {
        'store/a.go': `package store\n\nfunc helper() int { return 1 }\n\nfunc A() int { return 0 }\n`,
        'store/b.go': `package store\n\nfunc B() int { return helper() + 1 }\n`,
      },
      { 'store/a.go': `package store\n\nfunc A() int { return 0 }\n` },
    );
    expect(found.map((f) => f.severity)).toEqual(['fail']);
    expect(found[0]!.evidence).toMatchObject({ references: [{ path: 'store/b.go', line: 3 }] });
  });

  it('fails a Rust fn still called in its own file and one still imported through `use crate::…`', async () => {
    const base = `pub fn parse(s: &str) -> u8 { s.len() as u8 }\n\nfn double(x: u8) -> u8 { x * 2 }\n\npub fn run(s: &str) -> u8 { double(parse(s)) }\n`;
    const head = `pub fn run(s: &str) -> u8 { double(s.len() as u8) }\n`;
    const main = `use crate::text::{parse, run};\n\nfn main() { run("x"); }\n`;
    const found = await run({ 'src/text.rs': base, 'src/main.rs': main }, { 'src/text.rs': head });
    const refs = found.flatMap((f) => (f.evidence?.references as { path: string }[] | undefined) ?? []).map((r) => r.path);
    expect(found.every((f) => f.severity === 'fail')).toBe(true);
    expect(refs).toContain('src/text.rs');
    expect(refs).toContain('src/main.rs');
  });
});

describe('G7 names still served elsewhere', () => {
  it('passes names a module-level __getattr__ can still serve (a deprecation shim)', async () => {
    const base = `def old_api():\n    return 1\n\n\ndef new_api():\n    return 1\n`;
    const head = `import warnings\n\n\ndef new_api():\n    return 1\n\n\ndef __getattr__(name):\n    if name == "old_api":\n        warnings.warn("old_api is deprecated", DeprecationWarning)\n        return new_api\n    raise AttributeError(name)\n`;
    expect(await run({ 'lib/api.py': base, 'lib/use.py': 'from lib.api import old_api\n' }, { 'lib/api.py': head })).toEqual([]);
  });

  it('passes a name the package __init__ re-exports from its new module', async () => {
    const found = await run(
      { 'lib/__init__.py': 'from .util import helper\n', 'lib/util.py': `def helper():\n    return 1\n\n\ndef other():\n    return 2\n` },
      {
        'lib/__init__.py': 'from .impl import helper\n',
        'lib/util.py': `def other():\n    return 2\n`,
        'lib/impl.py': `def helper():\n    return 10\n`,
      },
    );
    expect(found).toEqual([]);
  });

  it('passes a TS export re-exported from another module (`export { x } from`) and a Rust item re-exported with `pub use`', async () => {
    const found = await run(
      {
        'src/index.ts': `export { slug } from './text';\n`,
        'src/text.ts': `export function slug(s: string): string {\n  return s;\n}\n\nexport function keep(): number {\n  return 1;\n}\n`,
        'src/lib.rs': `pub mod util;\npub use util::Thing;\n`,
        'src/util.rs': `pub struct Thing;\n\npub fn keep() {}\n`,
      },
      {
        'src/index.ts': `export { slug } from './slug';\n`,
        'src/slug.ts': `export function slug(s: string): string {\n  return s.trim();\n}\n`,
        'src/text.ts': `export function keep(): number {\n  return 1;\n}\n`,
        'src/lib.rs': `pub mod util;\npub mod thing;\npub use thing::Thing;\n`,
        'src/thing.rs': `pub struct Thing;\n`,
        'src/util.rs': `pub fn keep() {}\n`,
      },
    );
    expect(found).toEqual([]);
  });

  it('fails when the package __init__ still re-exports the name from the module that lost it', async () => {
    const found = await run(
      {
        'lib/__init__.py': 'from .util import helper, other\n',
        'lib/util.py': `def helper():\n    return 1\n\n\ndef other():\n    return 2\n`,
      },
      { 'lib/util.py': `def other():\n    return 2\n` },
    );
    expect(found.map((f) => f.severity)).toEqual(['fail']);
    expect(found[0]!.evidence).toMatchObject({ references: [{ path: 'lib/__init__.py', how: 'import' }] });
  });

  // gson#3085: a private helper replaced by `import static java.lang.Math.toIntExact`; its calls now reach Math.
  it('passes a Java method whose unqualified calls now resolve to a static import of the same name', async () => {
    const base = `package app;\n\nclass Adapters {\n    private static int toIntExact(long v) {\n        return (int) v;\n    }\n\n    int read(long v) {\n        return toIntExact(v);\n    }\n}\n`;
    const head = `package app;\n\nimport static java.lang.Math.toIntExact;\n\nclass Adapters {\n    int read(long v) {\n        return toIntExact(v);\n    }\n}\n`;
    expect(await run({ 'src/main/java/app/Adapters.java': base }, { 'src/main/java/app/Adapters.java': head })).toEqual([]);
  });

  it('still fails a Java method removed while its calls remain and nothing imports the name', async () => {
    const base = `package app;\n\nclass Adapters {\n    private static int clamp(long v) {\n        return (int) v;\n    }\n\n    int read(long v) {\n        return clamp(v);\n    }\n}\n`;
    const head = `package app;\n\nclass Adapters {\n    int read(long v) {\n        return clamp(v);\n    }\n}\n`;
    const found = await run({ 'src/main/java/app/Adapters.java': base }, { 'src/main/java/app/Adapters.java': head });
    expect(found.map((f) => f.severity)).toEqual(['fail']);
  });

  // serde#2991: a module and a macro moved into a macro_rules! body of another crate, expanded where it is invoked.
  it('passes Rust items the PR moved into a macro_rules! body of another changed file', async () => {
    const base = `pub mod lib {\n    pub use core::fmt;\n}\n\nmacro_rules! tri {\n    ($e:expr) => { $e? };\n}\n\npub fn go() -> u8 { 1 }\n`;
    const head = `core_crate::private_items!();\n\npub fn go() -> u8 { 1 }\n`;
    const macros = `#[macro_export]\nmacro_rules! private_items {\n    () => {\n        pub mod lib {\n            pub use core::fmt;\n        }\n        macro_rules! tri {\n            ($e:expr) => { $e? };\n        }\n    };\n}\n`;
    const user = `use crate::lib::*;\n\npub fn f() -> Result<(), ()> { tri!(Ok(())); Ok(()) }\n`;
    expect(await run({ 'src/lib.rs': base, 'src/de.rs': user }, { 'src/lib.rs': head, 'core_crate/src/macros.rs': macros })).toEqual([]);
  });
});
