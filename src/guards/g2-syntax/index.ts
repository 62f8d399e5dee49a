import type { Guard, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { checkCode } from './code-errors.js';
import { checkConfig, isTemplatedYaml, type SyntaxProblem } from './config-parsers.js';
import { kindLabel, syntaxKindOf, type SyntaxKind } from './file-kinds.js';
import { checkGoMod } from './go-mod-syntax.js';
import { checkShell, foreignShebang } from './shell-syntax.js';
import { workflowScriptProblem } from './workflow-script-check.js';
import { G2_EVIDENCE, type G2ParseEvidence } from './evidence.js';

/** Flow-typed JavaScript (`// @flow` in the header) is not JavaScript the grammar knows. */
function isFlowFile(text: string): boolean {
  return /^\s*(?:\/\/|\/?\*)[^\n]*@flow\b/m.test(text.slice(0, 2000));
}

/** Files G2 recognises but deliberately leaves alone: Flow sources and templated YAML (Helm). */
function notParseable(kind: SyntaxKind, text: string): boolean {
  if (kind.kind === 'code' && (kind.lang === 'javascript' || kind.lang === 'tsx') && isFlowFile(text)) return true;
  if ((kind.kind === 'yaml' || kind.kind === 'json-or-yaml') && isTemplatedYaml(text)) return true;
  return false;
}

function check(kind: SyntaxKind, text: string): Promise<SyntaxProblem | null> {
  switch (kind.kind) {
    case 'code':
      return checkCode(kind.lang, text);
    case 'shell':
      return foreignShebang(text) ? Promise.resolve(null) : checkShell(text);
    case 'go-mod':
      return Promise.resolve(checkGoMod(text, 'go.mod'));
    case 'go-work':
      return Promise.resolve(checkGoMod(text, 'go.work'));
    default:
      return Promise.resolve(checkConfig(kind.kind, text));
  }
}

function sameKind(a: SyntaxKind, b: SyntaxKind | null): boolean {
  return b !== null && a.kind === b.kind && (a.kind !== 'code' || (b.kind === 'code' && a.lang === b.lang));
}

/** The first error of the base version, when the base version is parsed the same way and also fails. */
async function baseProblem(file: ChangedFile, kind: SyntaxKind): Promise<SyntaxProblem | null> {
  const text = file.base.text;
  if (text === null || file.status === 'added') return null;
  if (!sameKind(kind, syntaxKindOf(file.oldPath ?? file.path))) return null;
  return check(kind, text);
}

function finding(file: ChangedFile, kind: SyntaxKind, problem: SyntaxProblem, before: SyntaxProblem | null): GuardFinding {
  const label = kindLabel(kind);
  const where = `line ${problem.line}, column ${problem.column}`;
  const base: GuardFinding = {
    category: 'syntax-invalid',
    severity: before ? 'risk' : 'fail',
    path: file.path,
    line: problem.line,
    message: before
      ? `\`${file.path}\` does not parse as ${label} (${where}): ${problem.message}. It already failed to parse before this PR (base: line ${before.line}, column ${before.column}), so this PR did not break it.`
      : `\`${file.path}\` no longer parses as ${label} (${where}): ${problem.message}.`,
    remediation: before
      ? `The file was broken before this PR; fixing it here is welcome. Errors this PR adds further down may be hidden behind the first one, so re-run after fixing line ${problem.line}.`
      : `Fix the ${label} syntax at line ${problem.line} so the file parses again (tools that read it will refuse it as it is).`,
    evidence: {
      parser: label,
      line: problem.line,
      column: problem.column,
      ...(before ? { baseLine: before.line, baseColumn: before.column } : {}),
    } satisfies G2ParseEvidence,
  };
  if (problem.fixedLine !== undefined) {
    base.suggestion = { path: file.path, startLine: problem.line, endLine: problem.line, replacement: problem.fixedLine };
  }
  return base;
}

export const g2: Guard = {
  id: 'G2',
  name: 'Changed files still parse',
  evidence: G2_EVIDENCE,
  needs: { services: [] },

  appliesTo(file) {
    return file.status !== 'deleted' && file.head.text !== null && syntaxKindOf(file.path) !== null;
  },
  async checkFile(file) {
    const kind = syntaxKindOf(file.path);
    const text = file.head.text;
    if (!kind || text === null || notParseable(kind, text)) return [];
    const problem = await check(kind, text);
    if (problem) return [finding(file, kind, problem, await baseProblem(file, kind))];
    // A workflow that parses as YAML: its bash/sh `run:` scripts must parse as shell too.
    const script = kind.kind === 'yaml' ? await workflowScriptProblem(file) : null;
    return script ? [script] : [];
  },
};
