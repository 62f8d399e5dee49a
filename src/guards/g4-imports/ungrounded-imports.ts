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
import { isMdx, mdxEsm } from './mdx-esm.js';
import { npmWorkspace } from './npm-workspace.js';
import { phantomOf, type Phantom } from './phantom-imports.js';
import type { G4UngroundedImportEvidence } from './evidence.js';

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
    evidence: { import: ref.spec, package: pkg, ecosystem, manifest } satisfies G4UngroundedImportEvidence,
  };
}

function phantomFinding(file: ChangedFile, ref: ImportRef, pkg: string, p: Phantom): GuardFinding {
  const where = p.declaredBy.map((m) => `\`${m}\``).join(', ');
  return {
    category: 'ungrounded-import',
    severity: p.severity,
    path: file.path,
    line: ref.line,
    message:
      `Line ${ref.line} adds \`${ref.text}\`, which needs the package '${pkg}', but \`${p.pkg.manifest}\` (the package this file ` +
      `belongs to) does not declare it; only ${where} ${p.declaredBy.length === 1 ? 'does' : 'do'}: ${p.why}.`,
    remediation: `Declare '${pkg}' in \`${p.pkg.manifest}\` (\`dependencies\` for code the package ships, \`devDependencies\` for its tests and tooling).`,
    evidence: {
      import: ref.spec,
      package: pkg,
      ecosystem: 'npm',
      manifest: p.pkg.manifest,
      declaredBy: p.declaredBy,
      phantom: true,
    } satisfies G4UngroundedImportEvidence,
  };
}

/** Where G4 reads imports from: a source file as it is, an MDX page through its ESM lines (as JavaScript). */
function importSource(file: ChangedFile): { lang: LangId; head: string; base: string | null; baseLang: LangId | null } | null {
  if (file.head.text === null) return null;
  if (isMdx(file.path)) {
    const base = file.base.text !== null && isMdx(file.oldPath ?? file.path) ? mdxEsm(file.base.text) : null;
    return { lang: 'javascript', head: mdxEsm(file.head.text), base, baseLang: base === null ? null : 'javascript' };
  }
  const lang = languageOf(file.path);
  if (!lang) return null;
  return { lang, head: file.head.text, base: file.base.text, baseLang: languageOf(file.oldPath ?? file.path) };
}

/**
 * G4 (a): imports the PR adds to a source file (present at head, absent from the file at base)
 * whose package is not declared by any manifest (base ∪ PR), not the language's standard library,
 * not a module of the repository, and not imported by any other source file at base (then the
 * repository already relies on it: a `TYPE_CHECKING`/`import type` import, a dev or transitive
 * dependency). Languages whose ecosystem has no manifest at all are skipped.
 */
export async function ungroundedImports(file: ChangedFile, ctx: GuardContext): Promise<GuardFinding[]> {
  const source = importSource(file);
  if (!source) return [];
  const { lang, baseLang } = source;
  const ecosystem = ecosystemOf(lang);
  if (!ecosystem) return [];
  const env = await envFor(ctx);
  if (!env.fp.ecosystems.includes(ecosystem)) return [];

  const headRefs = await extractImports(lang, source.head);
  const baseRefs = source.base !== null && baseLang ? await extractImports(baseLang, source.base) : [];
  const before = new Set(baseRefs.map((r) => importKey(lang, r.spec)));
  const rustNames =
    lang === 'rust'
      ? rustFileNames(
          source.head,
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
    if (res.kind === 'grounded' && res.why === 'declared' && ecosystem === 'npm') {
      // Declared somewhere in the repository; in a workspace, it must be by this file's own package.
      const pkg = npmPackageName(ref.spec.toLowerCase());
      const ws = pkg && !allowed.has(allowKey(pkg)) ? await npmWorkspace(ctx) : null;
      const phantom = ws && pkg ? phantomOf(ws, file.path, pkg) : null;
      if (phantom && pkg && !(await importedAtBase(ctx, 'npm', pkg, phantom.pkg.dir))) {
        reported.add(key);
        out.push(phantomFinding(file, ref, pkg, phantom));
      }
      continue;
    }
    if (res.kind !== 'ungrounded' || allowed.has(allowKey(res.pkg))) continue;
    // already imported somewhere at base (a type-only import under TYPE_CHECKING, a transitive or dev dependency)
    if (await importedAtBase(ctx, res.ecosystem, res.pkg)) continue;
    reported.add(key);
    out.push(finding(file, ref, res.ecosystem, res.pkg, manifestFor(res.ecosystem, file.path, env.fp.manifests)));
  }
  return out;
}
