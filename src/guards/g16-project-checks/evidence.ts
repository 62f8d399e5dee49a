import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';

/**
 * A file the project's formatter rejects on lines the PR wrote. The refiner's `g16-reformat` recipe reruns
 * `tool` with the same `edition` and the base's `config`.
 */
export const g16FormatEvidence = z.object({
  tool: z.enum(['gofmt', 'rustfmt']),
  /** The command the author runs to fix it. */
  command: z.string(),
  /** Where the project runs the check (`convention`, or the CI file and line). */
  source: z.string(),
  edition: z.string().optional(),
  config: z.string().optional(),
});
export type G16FormatEvidence = z.infer<typeof g16FormatEvidence>;

/**
 * A file a formatter run in the sandbox (from the project's own dependencies) rejects on lines the PR
 * wrote. No recipe reruns these: that would run PR-installed code outside the sandbox; the finding's
 * suggestion carries the formatter's output instead.
 */
export const g16ToolFormatEvidence = g16FormatEvidence.extend({ tool: z.enum(['ruff-format', 'black', 'prettier']) });
export type G16ToolFormatEvidence = z.infer<typeof g16ToolFormatEvidence>;

/** A linter or type checker run in the sandbox reports something new on a changed line. */
export const g16LintEvidence = z.object({
  tool: z.enum(['ruff-check', 'eslint', 'tsc', 'go-vet', 'mypy', 'clippy']),
  /** The tool's rule, error code or lint (`vet` for go vet, which names none; mypy's code may be empty). */
  rule: z.string(),
  source: z.string(),
});
export type G16LintEvidence = z.infer<typeof g16LintEvidence>;

/** The project's build passes at the base and fails at the head (build-check.ts). */
export const g16BuildEvidence = z.object({
  tool: z.literal('build'),
  command: z.string(),
  source: z.string(),
  /** The first error line the build printed. */
  error: z.string(),
});
export type G16BuildEvidence = z.infer<typeof g16BuildEvidence>;

const TOOL_FORMATTERS: readonly string[] = g16ToolFormatEvidence.shape.tool.options;
const LINTERS: readonly string[] = g16LintEvidence.shape.tool.options;

export function isToolFormatter(tool: string): tool is G16ToolFormatEvidence['tool'] {
  return TOOL_FORMATTERS.includes(tool);
}

export function isLinter(tool: string): tool is G16LintEvidence['tool'] {
  return LINTERS.includes(tool);
}

/** Every evidence shape G16 writes. */
export const G16_EVIDENCE: readonly EvidenceSchema[] = [g16FormatEvidence, g16ToolFormatEvidence, g16LintEvidence, g16BuildEvidence];
