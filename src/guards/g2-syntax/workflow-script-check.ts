import type { GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { checkShell } from './shell-syntax.js';
import { workflowScripts } from './workflow-scripts.js';
import type { G2ShellEvidence } from './evidence.js';

/** Workflows and local (composite) actions: the YAML files whose `run:` scripts a runner executes. */
const WORKFLOW = /(^|\/)\.github\/workflows\/[^/]+\.ya?ml$|(^|\/)action\.ya?ml$/i;

/** At most this many scripts per file are handed to bash (each is one short process). */
const MAX_SCRIPTS = 200;

/**
 * The first bash/sh `run:` script of a changed workflow that bash refuses, as a `syntax-invalid`
 * finding at the workflow line of the error. Scripts the base already had, word for word, are not
 * the PR's doing and are not checked.
 */
export async function workflowScriptProblem(file: ChangedFile): Promise<GuardFinding | null> {
  if (!WORKFLOW.test(file.path) || file.head.text === null) return null;
  const before = new Set(file.base.text !== null ? workflowScripts(file.base.text).map((s) => s.script) : []);
  const scripts = workflowScripts(file.head.text).filter((s) => !before.has(s.script));
  for (const s of scripts.slice(0, MAX_SCRIPTS)) {
    const problem = await checkShell(s.script);
    if (!problem) continue;
    const line = s.literal ? s.firstLine + problem.line - 1 : s.firstLine;
    const where = s.literal ? `line ${problem.line} of the script` : `the script starting on line ${s.firstLine}`;
    return {
      category: 'syntax-invalid',
      severity: 'fail',
      path: file.path,
      line,
      message: `The \`run:\` script of ${s.where} in \`${file.path}\` is not valid shell: bash -n stops at ${where} (file line ${line}): ${problem.message}. The step fails before any command runs.`,
      remediation: `Fix the shell syntax at line ${line} of ${file.path} (\`\${{ }}\` expressions are read as plain words here, as the runner substitutes them before bash runs).`,
      evidence: { parser: 'bash -n', line, scriptLine: problem.line, step: s.where } satisfies G2ShellEvidence,
    };
  }
  return null;
}
