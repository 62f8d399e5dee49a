/**
 * Go's rule for standard-library import paths: the first path element contains no dot
 * (`fmt`, `net/http`, `golang.org/x/…` is not std). `C` (cgo) passes the same way.
 */
export function isGoStdlib(importPath: string): boolean {
  const first = importPath.split('/')[0] ?? '';
  return first.length > 0 && !first.includes('.');
}
