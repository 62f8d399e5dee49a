import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { fingerprintFor } from '../../repo/fingerprint.js';
import type { Ecosystem } from '../../repo/fingerprint-types.js';
import { languageOf, type LangId } from '../../repo/languages.js';
import { extractImports, type ImportRef } from './import-extract.js';
import { localModulesAt } from './local-modules.js';
import { ecosystemOf, npmPackageName, resolveEnv, resolveImport, rustFileNames, type ResolveEnv } from './import-resolve.js';
import { manifestFor } from './manifest-hint.js';
import { importedAtBase } from './base-imports.js';

const ECOSYSTEM_WORDS: Partial<Record<Ecosystem, { manifest: string; stdlib: string }>> = {
  python: {
    manifest: 'Python manifest (pyproject.toml, requirements*.txt, setup.cfg, setup.py, Pipfile)',
    stdlib: 'the Python standard library',
  },
  npm: { manifest: 'package.json', stdlib: 'a Node built-in' },
  go: { manifest: 'go.mod', stdlib: 'the Go standard library' },
  rust: { manifest: 'Cargo.toml', stdlib: 'std/core/alloc' },
};

/** What makes two imports "the same" for deciding whether head added one: the package they name. */
function importKey(lang: LangId, spec: string): string {
  switch (ecosystemOf(lang)) {
    case 'python':
      return spec.startsWith('.') ? spec : spec.split('.')[0]!;
    case 'npm':
      return /^[.#/]/.test(spec) ? spec : (npmPackageName(spec) ?? spec);
    case 'rust':
      return spec.replace(/^::/, '').split('::')[0]!;
    default:
      return spec;
  }
}

/** `imports.allow` entries compare case-insensitively with `-`, `_` and `.` runs treated alike. */
function allowKey(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

function envFor(ctx: GuardContext): Promise<ResolveEnv> {
  return ctx.memo('g4:resolve-env', async () => resolveEnv(await fingerprintFor(ctx), await localModulesAt(ctx.head)));
}

function finding(file: ChangedFile, ref: ImportRef, ecosystem: Ecosystem, pkg: string, manifest: string): GuardFinding {
  const words = ECOSYSTEM_WORDS[ecosystem]!;
  return {
    category: 'ungrounded-import',
    severity: 'fail',
    path: file.path,
    line: ref.line,
    message:
      `Line ${ref.line} adds \`${ref.text}\`, which needs the package '${pkg}'. No ${words.manifest} in this repository ` +
      `or in this PR declares it, and it is neither ${words.stdlib} nor a module of the repository.`,
    remediation: `Declare '${pkg}' in ${manifest} in this PR if the change really needs it; otherwise use a library the repository already depends on.`,
    evidence: { import: ref.spec, package: pkg, ecosystem, manifest },
  };
}

/**
 * G4 (a): imports the PR adds to a source file (present at head, absent from the file at base)
 * whose package is not declared by any manifest (base ∪ PR), not the language's standard library,
 * not a module of the repository, and not imported by any other source file at base (then the
 * repository already relies on it: a `TYPE_CHECKING`/`import type` import, a dev or transitive
 * dependency). Languages whose ecosystem has no manifest at all are skipped.
 */
export async function ungroundedImports(file: ChangedFile, ctx: GuardContext): Promise<GuardFinding[]> {
  const lang = languageOf(file.path);
  const ecosystem = lang && ecosystemOf(lang);
  if (!lang || !ecosystem || file.head.text === null) return [];
  const env = await envFor(ctx);
  if (!env.fp.ecosystems.includes(ecosystem)) return [];

  const headRefs = await extractImports(lang, file.head.text);
  const baseLang = languageOf(file.oldPath ?? file.path);
  const baseRefs = file.base.text !== null && baseLang ? await extractImports(baseLang, file.base.text) : [];
  const before = new Set(baseRefs.map((r) => importKey(lang, r.spec)));
  const rustNames =
    lang === 'rust'
      ? rustFileNames(
          file.head.text,
          headRefs.map((r) => r.spec),
        )
      : new Set<string>();

  const allowed = new Set(ctx.config.imports.allow.map(allowKey));
  const out: GuardFinding[] = [];
  const reported = new Set<string>();
  for (const ref of headRefs) {
    const key = importKey(lang, ref.spec);
    if (before.has(key) || reported.has(key)) continue;
    const res = resolveImport(lang, ref.spec, env, rustNames);
    if (res.kind !== 'ungrounded' || allowed.has(allowKey(res.pkg))) continue;
    // already imported somewhere at base (a type-only import under TYPE_CHECKING, a transitive or dev dependency)
    if (await importedAtBase(ctx, res.ecosystem, res.pkg)) continue;
    reported.add(key);
    out.push(finding(file, ref, res.ecosystem, res.pkg, manifestFor(res.ecosystem, file.path, env.fp.manifests)));
  }
  return out;
}
