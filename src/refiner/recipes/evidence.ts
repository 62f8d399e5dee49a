import type { Finding } from '../../core/finding.js';

/** Typed reads of a finding's evidence (a plain JSON record: every field is checked, none trusted). */
export function evidenceOf(f: Finding): Record<string, unknown> {
  return f.evidence ?? {};
}

export function str(e: Record<string, unknown>, key: string): string | undefined {
  const v = e[key];
  return typeof v === 'string' ? v : undefined;
}

export function num(e: Record<string, unknown>, key: string): number | undefined {
  const v = e[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function records(e: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const v = e[key];
  if (!Array.isArray(v)) return [];
  return v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x));
}

export function strings(e: Record<string, unknown>, key: string): string[] {
  const v = e[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
