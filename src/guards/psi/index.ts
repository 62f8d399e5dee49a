import type { Guard, GuardFinding } from '../../core/guard.js';
import { isAddedLine } from '../../core/patch-set.js';
import { omegaOf, psiOf, type OmegaComponents, type OmegaResult } from '../../core/psi.js';
import type { PsiFileScore, PsiSection } from '../../core/report-sections.js';
import { gammaOf } from './gamma.js';
import { PSI_EVIDENCE, type PsiScoreEvidence } from './evidence.js';

/**
 * Ψ-lite: one score per changed file, Ψ = α·Γ − λ·Ω, from grounding Γ (gamma.ts) and slop Ω
 * (core/psi.ts). A file below `psi.threshold` gets a `low-psi` finding; the report's `psi` section
 * holds every file's score and the minimum.
 */
const f2 = (x: number) => x.toFixed(2);

const COMPONENT_LABELS: Record<keyof OmegaComponents, string> = {
  literalNewlines: 'written-out \\n on code-block lines',
  blankRuns: 'runs of 3+ blank lines',
  trailingWhitespace: 'trailing whitespace',
  fencedSource: 'source file wrapped in a Markdown fence',
  nearEmpty: 'near-empty source file',
};

function describeSlop(om: OmegaResult): string[] {
  const out: string[] = [];
  // cast: Object.keys types its result as string[]; COMPONENT_LABELS is a Record over exactly the Ω component names
  for (const key of Object.keys(COMPONENT_LABELS) as (keyof OmegaComponents)[]) {
    const v = om.components[key];
    if (v <= 0) continue;
    const lines = key in om.lines ? om.lines[key as keyof OmegaResult['lines']] : []; // cast: checked with `in` just before
    const at = lines.length
      ? ` (line${lines.length === 1 ? '' : 's'} ${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', …' : ''})`
      : '';
    out.push(`${COMPONENT_LABELS[key]} ${f2(v)}${at}`);
  }
  return out;
}

function firstEvidenceLine(om: OmegaResult): number | undefined {
  const l = om.lines.literalNewlines[0] ?? om.lines.blankRuns[0] ?? om.lines.trailingWhitespace[0];
  if (l !== undefined) return l;
  return om.components.fencedSource > 0 || om.components.nearEmpty > 0 ? 1 : undefined;
}

/** Slop components that are direct evidence of a broken generation, not of careless formatting. */
const STRONG_SLOP: (keyof OmegaComponents)[] = ['literalNewlines', 'fencedSource', 'nearEmpty'];

/**
 * How bad a score below the threshold is. Grounding alone never blocks: a name the repository does
 * not declare may be a real dependency we cannot see, a comparison or the project's own name. `fail`
 * needs slop evidence:
 *   - slop alone sinks the file (α·1 − λ·Ω below the threshold, as if every claim were grounded), or
 *   - strong slop (written-out \n in code, a fenced or emptied source file) next to an ungrounded claim, or
 *   - any slop next to two or more ungrounded claims.
 * Everything else below the threshold is a `risk`.
 */
export function psiSeverity(
  om: OmegaResult,
  ungrounded: number,
  w: { alpha: number; lambda: number; threshold: number },
): { severity: 'fail' | 'risk'; why: string } {
  if (w.alpha - w.lambda * om.omega < w.threshold) return { severity: 'fail', why: 'the slop alone puts it below the threshold' };
  const strong = STRONG_SLOP.some((k) => om.components[k] > 0);
  if (strong && ungrounded >= 1) return { severity: 'fail', why: 'broken-generation slop next to an ungrounded claim' };
  if (om.omega > 0 && ungrounded >= 2) return { severity: 'fail', why: `slop next to ${ungrounded} ungrounded claims` };
  if (om.omega === 0) return { severity: 'risk', why: 'only grounding is low (no slop): a risk, not a block' };
  return { severity: 'risk', why: 'low grounding with minor slop: a risk, not a block' };
}

export const psi: Guard = {
  id: 'psi',
  name: 'Ψ-lite quality score',
  evidence: PSI_EVIDENCE,
  needs: { services: ['repoName'], config: ['psi'] },
  runsWithoutFiles: true,
  appliesTo(file) {
    return file.status !== 'deleted' && file.head.text !== null;
  },
  async checkAll(files, ctx) {
    const { alpha, lambda, threshold } = ctx.config.psi;
    const scores: PsiFileScore[] = [];
    const findings: GuardFinding[] = [];
    for (const file of files) {
      if (ctx.signal.aborted) break;
      const gammaResult = await gammaOf(file, ctx);
      const { gamma, evidence } = gammaResult;
      const ungrounded = gammaResult.ungrounded ?? (gamma < 1 ? 1 : 0);
      const om = omegaOf({
        path: file.path,
        text: file.head.text ?? '',
        baseText: file.status === 'added' ? null : file.base.text,
        isAdded: (l) => isAddedLine(file, l),
      });
      const score = psiOf(gamma, om.omega, { alpha, lambda });
      scores.push({ path: file.path, psi: score, gamma, omega: om.omega, components: om.components, gammaEvidence: evidence });
      if (score >= threshold) continue;
      const slop = describeSlop(om);
      const line = firstEvidenceLine(om);
      const verdict = psiSeverity(om, ungrounded, { alpha, lambda, threshold });
      findings.push({
        category: 'low-psi',
        severity: verdict.severity,
        path: file.path,
        ...(line !== undefined ? { line } : {}),
        message:
          `Ψ-lite of ${file.path} is ${f2(score)}, below the threshold ${f2(threshold)}: Ψ = α·Γ − λ·Ω = ${f2(alpha)}·${f2(gamma)} − ${f2(lambda)}·${f2(om.omega)}. ` +
          `Grounding Γ = ${f2(gamma)}${evidence.length ? ` (${evidence.slice(0, 5).join('; ')})` : ''}; ` +
          `slop Ω = ${f2(om.omega)}${slop.length ? ` (${slop.join('; ')})` : ''}. Severity ${verdict.severity}: ${verdict.why}.`,
        remediation: `Raise the score of ${file.path}: ${
          [
            ...(slop.length
              ? [
                  'remove the slop listed (real line breaks instead of written-out \\n, no blank-line runs or trailing whitespace, plain source instead of a fenced or empty one)',
                ]
              : []),
            ...(gamma < 1 ? ['drop or ground the claims about frameworks/packages the repo does not use'] : []),
          ].join(', and ') || 'review the file'
        }.`,
        evidence: {
          psi: score,
          gamma,
          ungrounded,
          omega: om.omega,
          components: om.components,
          lines: om.lines,
          gammaEvidence: evidence,
          threshold,
        } satisfies PsiScoreEvidence,
      });
    }
    const weakest = scores.reduce<PsiFileScore | null>((w, s) => (w === null || s.psi < w.psi ? s : w), null);
    const section: PsiSection = { score: weakest?.psi ?? 1, weakestFile: weakest?.path ?? null, threshold, alpha, lambda, files: scores };
    ctx.section('psi', section);
    return findings;
  },
};
