import { posix } from 'node:path';
import type { GuardContext } from '../../core/guard.js';

/**
 * Go and Rust tests that are never built as tests.
 *
 * Go: `go test ./...` leaves out folders starting with `_` or `.`; only files
 * ending in `_test.go` are test files; and only `TestXxx(t *testing.T)` functions whose `Xxx` does not
 * start with a lower-case letter are tests (`Testfoo` never runs).
 *
 * Rust: a file under a crate's `src/` (a Cargo.toml beside it) is compiled only when its parent module declares it (`mod retry;` in
 * `lib.rs`, `main.rs`, `mod.rs` or the parent's own file); a `#[test]` in a file no module declares
 * never runs. Said only when one of those parent files exists and none declares it, and none uses
 * `#[path]` (which can point anywhere).
 */
const GO_TEST_FN = /^func\s+(Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)/gm;

/** Why `go test ./...` never runs the tests of a Go file the PR adds, or null. */
export function goMisses(path: string, text: string): { why: string; line: number } | null {
  const fns = [...text.matchAll(GO_TEST_FN)];
  if (fns.length === 0) return null;
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const skippedDir = posix
    .dirname(path)
    .split('/')
    .find((seg) => seg.length > 1 && (seg.startsWith('_') || seg.startsWith('.')));
  if (skippedDir)
    return {
      why: `\`go test ./...\` leaves out folders whose name starts with \`_\` or \`.\`; this file is in \`${skippedDir}/\``,
      line: 1,
    };
  if (!path.endsWith('_test.go')) {
    return {
      why: `only files whose name ends in \`_test.go\` hold tests; \`${posix.basename(path)}\` is built into the package as ordinary code`,
      line: lineOf(fns[0]!.index),
    };
  }
  const malformed = fns.find((m) => /^Test[a-z]/.test(m[1]!));
  if (malformed)
    return {
      why: `go test runs only functions named \`TestXxx\` where \`Xxx\` does not start with a lower-case letter; \`${malformed[1]}\` is never run`,
      line: lineOf(malformed.index),
    };
  return null;
}

const RUST_TEST = /#\[\s*(?:[\w:]+::)?test\b/;

/** Why cargo never compiles a Rust file the PR adds, or null (also null when not sure). */
export async function rustMisses(ctx: GuardContext, path: string, text: string): Promise<string | null> {
  const src = /^(?:(.*)\/)?src\//.exec(path);
  if (!RUST_TEST.test(text) || !src) return null;
  // Only a crate's own src/ folder: Rust files elsewhere (book snippets, test data) are not modules.
  const crate = src[1] ? `${src[1]}/Cargo.toml` : 'Cargo.toml';
  if (!(await ctx.head.has(crate))) return null;
  const base = posix.basename(path, '.rs');
  if (base === 'lib' || base === 'main' || base === 'build' || /(^|\/)src\/bin\//.test(path)) return null;
  const dir = posix.dirname(path);
  const [module, parentDir] = base === 'mod' ? [posix.basename(dir), posix.dirname(dir)] : [base, dir];
  const parents = [`${parentDir}/mod.rs`, `${parentDir}.rs`, `${parentDir}/lib.rs`, `${parentDir}/main.rs`];
  const texts = await ctx.head.readTexts(parents);
  if (texts.size === 0) return null;
  const declares = new RegExp(`(^|[^\\w])mod\\s+(?:r#)?${module}\\s*;`);
  for (const t of texts.values()) if (declares.test(t) || /#\[\s*path\s*=/.test(t)) return null;
  const listed = [...texts.keys()].map((p) => `\`${p}\``).join(', ');
  return `cargo compiles a module file only when its parent declares it; ${listed} ${texts.size === 1 ? 'has' : 'have'} no \`mod ${module};\`, so this file and its #[test] functions are never built`;
}
