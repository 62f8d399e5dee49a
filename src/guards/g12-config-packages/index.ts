import type { Guard, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { fingerprintFor } from '../../repo/fingerprint.js';
import type { RepoFingerprint } from '../../repo/fingerprint-types.js';
import { configReferences, configToolOf, type PackageReference } from '../shared/config-references.js';

/** Packages a declared package ships with, so configs may import them without declaring them. */
const PROVIDED_BY: Record<string, string[]> = {
  vite: ['vitest', 'astro', 'nuxt', '@sveltejs/kit', '@remix-run/dev'],
};

export function hasPackageJson(fp: RepoFingerprint): boolean {
  return fp.manifests.some((m) => m === 'package.json' || m.endsWith('/package.json'));
}

/** True when the repo declares npm package `name` (any package.json), is it, or ships it via a declared package. */
export function isGroundedPackage(name: string, fp: RepoFingerprint): boolean {
  const lower = name.toLowerCase();
  const declared = new Set(fp.deps.npm.map((d) => d.toLowerCase()));
  if (declared.has(lower) || fp.localPackages.some((p) => p.toLowerCase() === lower)) return true;
  return (PROVIDED_BY[lower] ?? []).some((p) => declared.has(p));
}

/** The references in a changed config file that its base version did not already make. */
export async function addedReferences(file: ChangedFile): Promise<PackageReference[]> {
  const head = await configReferences(file.path, file.head.text!);
  const baseText = file.base.text;
  const before = baseText !== null ? await configReferences(file.oldPath ?? file.path, baseText) : [];
  const known = new Set(before.map((r) => r.name));
  return head.filter((r) => !known.has(r.name));
}

function declaredList(fp: RepoFingerprint): string {
  const deps = fp.deps.npm;
  if (deps.length === 0) return 'package.json declares no npm dependencies';
  return `declared: ${deps.slice(0, 6).join(', ')}${deps.length > 6 ? `, … (${deps.length} in total)` : ''}`;
}

const VIA: Record<string, string> = {
  import: 'an import',
  require: 'a require()',
  plugins: 'the plugins list',
  presets: 'the presets list',
  extends: 'extends',
  parser: 'parser',
};

export const g12: Guard = {
  id: 'G12',
  name: 'ungrounded config packages',
  appliesTo: (file) => file.status !== 'deleted' && file.head.text !== null && configToolOf(file.path) !== null,
  async checkFile(file, ctx) {
    const fp = await fingerprintFor(ctx);
    if (!hasPackageJson(fp)) return []; // not an npm project: nothing to check against
    const findings: GuardFinding[] = [];
    const reported = new Set<string>();
    for (const ref of await addedReferences(file)) {
      if (reported.has(ref.name) || isGroundedPackage(ref.name, fp)) continue;
      reported.add(ref.name);
      const shorthand = ref.written !== ref.name ? ` (written "${ref.written}")` : '';
      findings.push({
        category: 'ungrounded-package',
        severity: 'fail',
        path: file.path,
        line: ref.line,
        message: `${file.path} line ${ref.line} loads the npm package \`${ref.name}\`${shorthand} in ${VIA[ref.via] ?? ref.via}, but no package.json in the repository declares it (${declaredList(fp)}). The tool will fail to load the config.`,
        remediation: `Add \`${ref.name}\` to devDependencies (npm install --save-dev ${ref.name}) in this PR, or remove it from ${file.path}.`,
        evidence: { package: ref.name, written: ref.written, via: ref.via },
      });
    }
    return findings;
  },
};
