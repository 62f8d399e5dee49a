import type { SchemaTarget } from './config-targets.js';
import { formatPath, type SchemaProblem } from './schema-errors.js';
import { BUNDLED_SCHEMAS } from './schema-registry.js';
import type { Behaviour } from './tool-behaviour.js';

/** One problem as G10 reports it: what is wrong, what the tool does with it, what to write instead. */
export interface Judged {
  problem: SchemaProblem;
  behaviour: Behaviour;
  /** The key the author most likely meant (unknown keys only). */
  meant?: string | undefined;
}

function moreText(others: number): string {
  return others > 0 ? ` (${others} more problem${others === 1 ? '' : 's'} of this kind in this file)` : '';
}

/** "Did you mean `x`?", or the keys the schema knows there when nothing is close. */
function meantText(meant: string | undefined, problem: SchemaProblem, schema: string): string {
  if (meant) return ` Did you mean ${/^[[\w]/.test(meant) && !meant.includes(' ') ? `\`${meant}\`` : meant}?`;
  return problem.known?.length ? ` (${schema} expects ${problem.expected}.)` : '';
}

export function messageFor(path: string, j: Judged, target: SchemaTarget, others: number): string {
  const { problem, behaviour } = j;
  const where = formatPath(problem.path);
  const schema = BUNDLED_SCHEMAS[target.schema];
  const more = moreText(others);
  if (problem.keyword === 'additionalProperties') {
    if (!behaviour.says) {
      return `${path} has a key \`${where}\` that ${schema} does not list${more}; whether the tool refuses or ignores it is not known here.${meantText(j.meant, problem, schema)}`;
    }
    if (behaviour.verdict === 'rejects')
      return `${path} has an unknown key \`${where}\`: ${behaviour.says}${more}.${meantText(j.meant, problem, schema)}`;
    if (behaviour.verdict === 'ignores')
      return `${path} has \`${where}\`, which is never read (${behaviour.says})${more}: the setting does nothing.${meantText(j.meant, problem, schema)}`;
    return `${path} sets \`${where}\`, which ${behaviour.row?.tool ?? 'the tool'} does not know: ${behaviour.says}${more}.${meantText(j.meant, problem, schema)}`;
  }
  const found = problem.actual === null ? 'it is missing' : `found ${problem.actual}`;
  const says = behaviour.says ? `: ${behaviour.says}${behaviour.verdict === 'rejects' ? '' : ', so the setting does nothing'}` : '';
  return `${path} does not match ${schema} at \`${where}\`: expected ${problem.expected}; ${found}${more}${says}.`;
}

export function remediationFor(path: string, j: Judged): string {
  const { problem, behaviour } = j;
  const key = `\`${formatPath(problem.path)}\``;
  const blocks = behaviour.verdict === 'rejects' ? ` ${behaviour.row?.tool ?? 'The tool'} does not run until it is fixed.` : '';
  if (problem.keyword === 'additionalProperties') {
    if (j.meant)
      return `Rename or move ${key} in ${path} to ${j.meant.startsWith('the ') ? j.meant : `\`${j.meant}\``}, or remove it.${blocks}`;
    return `Remove ${key} from ${path}, or write the setting where the tool reads it.${blocks}`;
  }
  if (problem.keyword === 'required') return `Add ${key} to ${path}; the tool requires it here.${blocks}`;
  return `Set ${key} in ${path} to ${problem.expected.replace(/ \(found [^)]*\)$/, '')}.${blocks}`;
}
