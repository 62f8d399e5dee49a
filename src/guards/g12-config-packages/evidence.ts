import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

/** A tool config that loads an npm package no package.json declares (`via`: the config key that loads it). */
export const g12PackageEvidence = z.object({ package: z.string(), written: z.string(), via: z.string() });
export type G12PackageEvidence = z.infer<typeof g12PackageEvidence>;

/** Every evidence shape G12 writes. */
export const G12_EVIDENCE: readonly EvidenceSchema[] = [g12PackageEvidence];
