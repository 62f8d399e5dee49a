import type { Guard, GuardFinding } from '../../core/guard.js';
import { fingerprintFor } from '../../repo/fingerprint.js';
import type { RepoFingerprint } from '../../repo/fingerprint-types.js';
import { configToolOf } from '../shared/config-references.js';
import { addedReferences, hasPackageJson, isGroundedPackage } from '../shared/package-grounding.js';
import { G12_EVIDENCE, type G12PackageEvidence } from './evidence.js';

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
  evidence: G12_EVIDENCE,
  needs: { services: [] },
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
        evidence: { package: ref.name, written: ref.written, via: ref.via } satisfies G12PackageEvidence,
      });
    }
    return findings;
  },
};
