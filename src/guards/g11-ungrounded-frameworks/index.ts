import type { Guard, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { fingerprintFor } from '../../repo/fingerprint.js';
import type { RepoFingerprint } from '../../repo/fingerprint-types.js';
import { isChangedDoc } from '../shared/doc-files.js';
import { ownNames } from '../shared/own-names.js';
import { frameworkClaims, isGroundedFramework, type FrameworkClaim } from '../shared/framework-claims.js';
import { G11_EVIDENCE, type G11FrameworkEvidence } from './evidence.js';

/** A short sample of what the repo does declare, for the message. */
export function declaredSample(fp: RepoFingerprint, max = 6): string {
  const frameworks = fp.frameworks;
  const deps = [...new Set(Object.values(fp.deps).flat())].sort();
  const list = frameworks.length ? frameworks : deps;
  const what = frameworks.length ? 'frameworks' : 'dependencies';
  if (list.length === 0) return 'the repository declares no dependencies';
  const more = list.length > max ? `, … (${list.length} in total)` : '';
  return `the repository declares ${what} ${list.slice(0, max).join(', ')}${more}`;
}

function findingFor(file: ChangedFile, claims: FrameworkClaim[], fp: RepoFingerprint): GuardFinding {
  const first = claims[0]!;
  const lines = [...new Set(claims.map((c) => c.line))];
  const also =
    lines.length > 1 ? ` (also on line${lines.length > 2 ? 's' : ''} ${lines.slice(1, 6).join(', ')}${lines.length > 6 ? ', …' : ''})` : '';
  const where = first.inCode ? 'in a code example' : '';
  return {
    category: 'ungrounded-framework',
    severity: 'risk',
    path: file.path,
    line: first.line,
    message: `Line ${first.line} of ${file.path} mentions ${first.name} ("${first.literal}")${where ? ` ${where}` : ''}${also}, but nothing in the repository uses it: no ${first.id} dependency or framework is declared (${declaredSample(fp)}).`,
    remediation: `Remove or correct the ${first.name} claim in ${file.path}, or add the dependency in this PR if the project really uses ${first.name}.`,
    evidence: { framework: first.id, literal: first.literal, lines, declared: fp.frameworks.slice(0, 10) } satisfies G11FrameworkEvidence,
  };
}

export const g11: Guard = {
  id: 'G11',
  name: 'ungrounded frameworks',
  evidence: G11_EVIDENCE,
  needs: { services: ['repoName'] },
  appliesTo: (file) => isChangedDoc(file),
  async checkFile(file, ctx) {
    const fp = await fingerprintFor(ctx);
    // A repo without any manifest (docs only, or a language we do not read) grounds nothing: stay quiet.
    if (fp.manifests.length === 0) return [];
    const own = await ownNames(ctx, fp);
    const byId = new Map<string, FrameworkClaim[]>();
    for (const claim of frameworkClaims(file, fp)) {
      if (isGroundedFramework(claim.id, fp, own)) continue;
      byId.set(claim.id, [...(byId.get(claim.id) ?? []), claim]);
    }
    return [...byId.values()].map((claims) => findingFor(file, claims, fp));
  },
};
