import type { ReportSections } from '../core/report-sections.js';
import type { GuardFinding } from '../core/guard.js';
import { readPsi } from '../report/sections.js';

/** The structured evidence a model sees besides the diff: what the guards found, tests, Ψ, rounds. */
export interface Forensics {
  findings: { guard: string; category: string; severity: string; where: string; message: string }[];
  findingsTotal: number;
  tests: Record<string, number | string> | null;
  psi: number | null;
  round: number;
  maxRounds: number;
}

const MAX_FINDINGS = 30;

function testCounts(section: unknown): Record<string, number | string> | null {
  if (typeof section !== 'object' || section === null || Array.isArray(section)) return null;
  const out: Record<string, number | string> = {};
  for (const [k, v] of Object.entries(section)) {
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
    else if (Array.isArray(v)) out[k] = v.length;
    else if (typeof v === 'string' && v.length <= 200) out[k] = v;
  }
  return Object.keys(out).length ? out : null;
}

export interface ForensicsInput {
  findings: readonly GuardFinding[];
  sections: ReportSections;
  round: number;
  maxRounds: number;
}

export function forensicsOf(input: ForensicsInput): Forensics {
  const psi = readPsi(input.sections.psi);
  return {
    findings: input.findings.slice(0, MAX_FINDINGS).map((f) => ({
      guard: f.guard ?? 'unknown',
      category: f.category,
      severity: f.severity,
      where: f.path ? (f.line ? `${f.path}:${f.line}` : f.path) : '(whole change)',
      message: f.message.split('\n', 1)[0]!.slice(0, 300),
    })),
    findingsTotal: input.findings.length,
    tests: testCounts(input.sections.tests),
    psi: psi?.score ?? null,
    round: input.round,
    maxRounds: input.maxRounds,
  };
}
