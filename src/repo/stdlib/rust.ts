/** Crates every Rust program may name without declaring them, and the path keywords of the crate itself. */
export const RUST_BUILTIN_CRATES: ReadonlySet<string> = new Set(['std', 'core', 'alloc', 'proc_macro', 'test']);
export const RUST_PATH_KEYWORDS: ReadonlySet<string> = new Set(['crate', 'self', 'super', 'Self']);

/** True for `std`, `core`, `alloc`, `proc_macro`, `test`, `crate`, `self`, `super`, `Self`. */
export function isRustBuiltinPath(firstSegment: string): boolean {
  return RUST_BUILTIN_CRATES.has(firstSegment) || RUST_PATH_KEYWORDS.has(firstSegment);
}
