import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

const ECOSYSTEM = z.enum(['npm', 'python', 'go', 'rust', 'ruby', 'php', 'java']);

/** An import of a package no manifest declares (`phantom`: declared only by another package of the workspace). */
export const g4UngroundedImportEvidence = z.object({
  /** The import as written; the refiner's `g4-remove-import` recipe finds the line by it. */
  import: z.string(),
  package: z.string(),
  ecosystem: ECOSYSTEM,
  manifest: z.string(),
  declaredBy: z.array(z.string()).optional(),
  phantom: z.literal(true).optional(),
});
export type G4UngroundedImportEvidence = z.infer<typeof g4UngroundedImportEvidence>;

/** A name imported from one of the repository's own modules that the module does not define. */
export const g4MissingSymbolEvidence = z.object({
  kind: z.literal('missing-symbol'),
  module: z.string(),
  name: z.string(),
  target: z.string(),
});
export type G4MissingSymbolEvidence = z.infer<typeof g4MissingSymbolEvidence>;

/** A public function whose parameters changed (rendered parameter lists). */
export const g4SignatureEvidence = z.object({ name: z.string(), before: z.string(), after: z.string() });
export type G4SignatureEvidence = z.infer<typeof g4SignatureEvidence>;

/** The refiner's file fence: the paths a refiner patch may touch. */
export const g4FenceEvidence = z.object({ allowed: z.array(z.string()) });
export type G4FenceEvidence = z.infer<typeof g4FenceEvidence>;

/**
 * A dependency the PR removes from a manifest (package.json, pyproject.toml, requirements*.txt, Pipfile,
 * go.mod, Cargo.toml) while files of its package still import it.
 */
export const g4RemovedDependencyEvidence = z.object({
  /** As the manifest names it (a Python distribution, a Go module path, a Cargo dependency key). */
  package: z.string(),
  ecosystem: z.enum(['npm', 'python', 'go', 'rust']),
  manifest: z.string(),
  /** The name the code imports, when it differs from `package` (`yaml` for PyYAML, `serde_json`). */
  importName: z.string().optional(),
  /** Up to 20 head files that import it. */
  importers: z.array(z.string()),
  importerCount: z.number(),
  removedDependency: z.literal(true),
});
export type G4RemovedDependencyEvidence = z.infer<typeof g4RemovedDependencyEvidence>;

/** Every evidence shape G4 writes. */
export const G4_EVIDENCE: readonly EvidenceSchema[] = [
  g4UngroundedImportEvidence,
  g4RemovedDependencyEvidence,
  g4MissingSymbolEvidence,
  g4SignatureEvidence,
  g4FenceEvidence,
];
