import type { ChangedFile } from '../../core/patch-set.js';
import type { RepoFingerprint } from '../../repo/fingerprint-types.js';
import { configReferences, type PackageReference } from './config-references.js';

/** Whether a JS/TS config's package is grounded in the repository (G12 and Ψ-lite's Γ). */

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
  if (file.head.text === null) return [];
  const head = await configReferences(file.path, file.head.text);
  const baseText = file.base.text;
  const before = baseText !== null ? await configReferences(file.oldPath ?? file.path, baseText) : [];
  const known = new Set(before.map((r) => r.name));
  return head.filter((r) => !known.has(r.name));
}
