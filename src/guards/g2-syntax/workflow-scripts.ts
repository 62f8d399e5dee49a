import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Scalar, type YAMLMap } from 'yaml';
import { isRecord } from '../../core/is-record.js';

/**
 * The shell scripts of a GitHub Actions workflow (or a composite action): every `run:` whose shell
 * is bash or sh. The shell is the step's `shell:`, else the job's and then the workflow's
 * `defaults.run.shell`, else the runner's default: bash, except on Windows runners (PowerShell). A
 * job whose `runs-on` is an expression over the matrix counts as Linux/macOS when any matrix value
 * is not Windows; any other expression leaves the default unknown and the script is not checked.
 * A composite action's steps name their shell themselves.
 *
 * `${{ … }}` expressions are replaced by a placeholder word (GitHub substitutes them before the
 * shell sees the script), keeping the line breaks. For a literal block (`run: |`) script line n is
 * file line `first + n - 1`; folded or quoted scripts are reported at the line of the value.
 */
export interface WorkflowScript {
  script: string;
  /** File line of the script's first line. */
  firstLine: number;
  /** Script lines map one to one onto file lines. */
  literal: boolean;
  /** `step \`Build\` of job \`test\``, for messages. */
  where: string;
}

const EXPRESSION = /\$\{\{[\s\S]*?\}\}/g;
const SHELL = /^(?:bash|sh)(?:\s|$)/;

/** The script as the shell receives it, with expressions replaced by a word (line breaks kept). */
export function withoutExpressions(run: string): string {
  return run.replace(EXPRESSION, (m) => `GH_EXPR${'\n'.repeat((m.match(/\n/g) ?? []).length)}`);
}

const str = (v: unknown): string | undefined => (isScalar(v) && typeof v.value === 'string' ? v.value : undefined);

function defaultShell(map: unknown): string | undefined {
  if (!isMap(map)) return undefined;
  const defaults = map.get('defaults', true);
  const run = isMap(defaults) ? defaults.get('run', true) : undefined;
  return isMap(run) ? str(run.get('shell', true)) : undefined;
}

const labels = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** 'bash' when a job runs on Linux/macOS (GitHub's default shell there), null on Windows or when unknown. */
function runnerShell(job: YAMLMap): 'bash' | null {
  const values: unknown = job.toJSON();
  if (!isRecord(values)) return null;
  let runsOn = values['runs-on'];
  if (isRecord(runsOn)) runsOn = runsOn.labels;
  const matrix = isRecord(values.strategy) && isRecord(values.strategy.matrix) ? values.strategy.matrix : undefined;
  const resolved: string[] = [];
  for (const label of labels(runsOn)) {
    const m = /^\$\{\{\s*matrix\.([\w-]+)\s*\}\}$/.exec(label.trim());
    if (m) {
      const key = m[1]!;
      const include: unknown[] = Array.isArray(matrix?.include) ? matrix.include : [];
      const all = [...labels(matrix?.[key]), ...include.flatMap((i) => (isRecord(i) ? labels(i[key]) : []))];
      if (all.length === 0) return null;
      resolved.push(...all);
    } else if (label.includes('${{')) return null;
    else resolved.push(label);
  }
  if (resolved.length === 0) return null;
  return resolved.some((l) => !/windows/i.test(l)) ? 'bash' : null;
}

function scriptsOfSteps(
  steps: unknown,
  shellOf: (step: YAMLMap) => string | undefined,
  jobLabel: string,
  counter: LineCounter,
  out: WorkflowScript[],
): void {
  if (!isSeq(steps)) return;
  steps.items.forEach((step, i) => {
    if (!isMap(step)) return;
    const node = step.get('run', true);
    if (!isScalar(node) || typeof node.value !== 'string') return;
    const shell = shellOf(step);
    if (!shell || !SHELL.test(shell)) return;
    const name = str(step.get('name', true)) ?? str(step.get('id', true));
    const where = `${name ? `step \`${name}\`` : `step ${i + 1}`} of ${jobLabel}`;
    out.push(scriptAt(node, counter, where));
  });
}

function scriptAt(node: Scalar, counter: LineCounter, where: string): WorkflowScript {
  const start = node.range?.[0] ?? 0;
  const valueLine = counter.linePos(start).line;
  const literal = node.type === 'BLOCK_LITERAL';
  return { script: withoutExpressions(String(node.value)), firstLine: literal ? valueLine + 1 : valueLine, literal, where };
}

/** Every bash/sh script of a workflow or composite action text; empty when it does not parse. */
export function workflowScripts(text: string): WorkflowScript[] {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length > 0 || !isMap(doc.contents)) return [];
  const root = doc.contents;
  const out: WorkflowScript[] = [];
  const jobs = root.get('jobs', true);
  if (isMap(jobs)) {
    const workflowShell = defaultShell(root);
    for (const pair of jobs.items) {
      const id = isScalar(pair.key) ? String(pair.key.value) : '';
      const job = pair.value;
      if (!isMap(job)) continue;
      const jobShell = defaultShell(job) ?? workflowShell;
      const fallback = jobShell ?? runnerShell(job) ?? undefined;
      scriptsOfSteps(job.get('steps', true), (step) => str(step.get('shell', true)) ?? fallback, `job \`${id}\``, counter, out);
    }
  }
  const runs = root.get('runs', true);
  if (isMap(runs) && str(runs.get('using', true)) === 'composite') {
    scriptsOfSteps(runs.get('steps', true), (step) => str(step.get('shell', true)), 'the action', counter, out);
  }
  return out;
}
