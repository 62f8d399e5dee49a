import type { Category } from '../../src/core/categories.js';
import type { Guard, GuardFinding } from '../../src/core/guard.js';

/**
 * A deterministic guard for App tests: every line containing `SLOP` is a blocking finding (also on
 * lines the PR did not add, to produce off-diff findings). `SLOP FIXABLE` lines carry a suggestion
 * that removes the marker; `SENSITIVE` lines escalate.
 */
export const markerGuard: Guard = {
  id: 'G99',
  name: 'test marker',
  appliesTo: (file) => file.head.text !== null,
  checkFile(file) {
    const out: GuardFinding[] = [];
    file.head.text!.split('\n').forEach((text, i) => {
      const line = i + 1;
      if (text.includes('SENSITIVE')) {
        out.push({
          category: 'sensitive-path' as Category,
          severity: 'fail',
          path: file.path,
          line,
          message: `line ${line} touches a sensitive thing`,
          remediation: 'ask a maintainer',
        });
        return;
      }
      if (!text.includes('SLOP')) return;
      const finding: GuardFinding = {
        category: 'todo-marker',
        severity: 'fail',
        path: file.path,
        line,
        message: `${file.path} line ${line} still holds the SLOP marker: "${text.trim()}"`,
        remediation: 'remove the SLOP marker',
      };
      if (text.includes('FIXABLE'))
        finding.suggestion = { path: file.path, startLine: line, endLine: line, replacement: text.replace(/ ?SLOP FIXABLE/, '') };
      out.push(finding);
    });
    return out;
  },
};
