import { posix } from 'node:path';
import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { computeFingerprint } from '../../repo/fingerprint.js';
import { dependencyReaderFor } from '../../repo/manifests/dependency-specs.js';
import { isSkippedPath } from '../../repo/manifests/index.js';
import { extractImports } from './import-extract.js';
import { dirOf, escapeRegex, grepHead, ownerDir, removedFinding } from './removed-shared.js';

/**
 * A module the PR removes from a go.mod `require` while .go files of that module still import a
 * package under its path: `go build` (or `go test`, for _test.go files) stops with "no required module
 * provides package". Not reported when another module still provides the path: one the head go.mod
 * still requires whose path is a prefix of the import (a parent module, a replacement), or one of the
 * repository's own modules (a go.work member). Where every importing file carries a `//go:build`
 * constraint (a `tools.go`), the default build skips them: `risk`.
 */

const under = (path: string, module: string) => path === module || path.startsWith(`${module}/`);

/** The required module paths of a go.mod text. */
function required(text: string): Set<string> {
  const read = dependencyReaderFor('go.mod');
  return new Set([...(read ? read(text).keys() : [])].map((k) => k.split('\0')[1]!));
}

/** True when the file's header has a build constraint (`//go:build …` or the old `// +build …`). */
function constrained(text: string): boolean {
  const header = text.split(/^package\s/m)[0] ?? '';
  return /^\/\/(go:build|\s*\+build)\s/m.test(header);
}

export async function removedGoFindings(file: ChangedFile, ctx: GuardContext): Promise<GuardFinding[]> {
  if (posix.basename(file.path) !== 'go.mod' || file.status !== 'modified' || file.base.text === null || file.head.text === null) return [];
  const kept = required(file.head.text);
  const removed = [...required(file.base.text)].filter((m) => !kept.has(m));
  if (removed.length === 0) return [];
  const head = await ctx.memo('g4:head-fingerprint', () => computeFingerprint(ctx.head));
  const moduleDirs = new Set((await ctx.head.paths()).filter((p) => posix.basename(p) === 'go.mod' && !isSkippedPath(p)).map(dirOf));
  const dir = dirOf(file.path);
  const out: GuardFinding[] = [];
  for (const module of removed.slice(0, 20)) {
    const candidates = (await grepHead(ctx, `"${escapeRegex(module)}(/[^"]*)?"`, ['*.go'], dir)).filter(
      (p) => !isSkippedPath(p) && ownerDir(p, moduleDirs) === dir,
    );
    if (candidates.length === 0) continue;
    const texts = await ctx.head.readTexts(candidates.slice(0, 400));
    const files: string[] = [];
    let unconstrained = false;
    let provided = false;
    for (const path of candidates) {
      const text = texts.get(path);
      if (text === undefined) continue;
      const imports = (await extractImports('go', text)).filter((r) => under(r.spec, module));
      if (imports.length === 0) continue;
      // Another module still provides the path: a required module (parent, replacement) or one of the repository's own.
      if (imports.some((r) => [...kept, ...head.goModules].some((m) => under(r.spec, m)))) {
        provided = true;
        break;
      }
      files.push(path);
      if (!constrained(text)) unconstrained = true;
    }
    if (provided || files.length === 0) continue;
    out.push(
      removedFinding({
        manifest: file,
        ecosystem: 'go',
        pkg: module,
        importers: files,
        accidental: unconstrained
          ? null
          : 'every importing file has a `//go:build` constraint, so the default build skips them and only builds with those tags (and `go mod tidy`) break.',
        breaks: files.every((f) => f.endsWith('_test.go'))
          ? '`go test` and `go vet` stop with "no required module provides package".'
          : '`go build` stops with "no required module provides package".',
        remediation: `Keep \`require ${module}\` in \`${file.path}\` (run \`go mod tidy\`), or remove its imports from those files in this PR.`,
      }),
    );
  }
  return out;
}
