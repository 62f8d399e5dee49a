import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { isRecord } from '../../core/is-record.js';

/**
 * What a workflow edit takes away from the checks a PR must pass, comparing the base and head
 * versions of one workflow (or local action):
 *   - an action pinned to a lower major version than before (`actions/setup-node@v4` → `@v3`; for a
 *     commit-sha pin, the version in its trailing comment, `@<sha> # v8` → `@<sha> # v6`);
 *   - a check step (tests, lint, format, type check, build, audit: by its name, command or action)
 *     removed from a job that is still there, when no job of the head runs the same command;
 *   - a step or job that now has `continue-on-error: true`;
 *   - a job's `if:` condition removed, or a job that no longer `needs:` a job it waited for.
 * Jobs are matched by id; steps by `id`, then `name`, then the action they use, then the command they
 * run, and what is left over in order (a step whose name and command both changed is an edit, not a
 * removal). Each concern names the before and after.
 */
export interface GateConcern {
  what: string;
  /** 1-based head line where it shows (the step or job at head), when known. */
  line?: number;
}

interface Step {
  index: number;
  id?: string;
  name?: string;
  uses?: string;
  /** The version in a comment after `uses:` (`# v8.1.0`), for sha pins. */
  usesComment?: string;
  run?: string;
  continueOnError: boolean;
  line?: number;
}

interface Job {
  id: string;
  /** `if:` as written, when it is there. */
  condition?: string;
  needs: string[];
  continueOnError: boolean;
  steps: Step[];
  line?: number;
}

interface Workflow {
  jobs: Map<string, Job>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

function lineOf(node: unknown, counter: LineCounter): number | undefined {
  const range = (node as { range?: [number, number] } | null)?.range; // cast: library typing gap: yaml nodes carry a range
  return range ? counter.linePos(range[0]).line : undefined;
}

function readSteps(stepsNode: unknown, counter: LineCounter): Step[] {
  if (!isSeq(stepsNode)) return [];
  const out: Step[] = [];
  stepsNode.items.forEach((item, index) => {
    if (!isMap(item)) return;
    const data: unknown = (item as YamlNode).toJSON();
    if (!isRecord(data)) return;
    const usesNode = item.get('uses', true);
    const comment = isScalar(usesNode) ? usesNode.comment?.trim() : undefined;
    const step: Step = { index, continueOnError: data['continue-on-error'] === true };
    const id = str(data.id);
    const name = str(data.name);
    const uses = str(data.uses);
    const run = str(data.run);
    const line = lineOf(item, counter);
    if (id) step.id = id;
    if (name) step.name = name;
    if (uses) step.uses = uses;
    if (comment) step.usesComment = comment;
    if (run) step.run = run;
    if (line !== undefined) step.line = line;
    out.push(step);
  });
  return out;
}

function parseWorkflow(text: string | null): Workflow | null {
  if (text === null) return null;
  const counter = new LineCounter();
  let doc;
  try {
    doc = parseDocument(text, { lineCounter: counter, uniqueKeys: false, prettyErrors: false });
  } catch {
    return null;
  }
  if (doc.errors.length > 0 || !isMap(doc.contents)) return null;
  const jobs = new Map<string, Job>();
  const jobsNode = doc.contents.get('jobs', true);
  if (isMap(jobsNode)) {
    for (const pair of jobsNode.items) {
      const id = isScalar(pair.key) ? String(pair.key.value) : null;
      if (!id || !isMap(pair.value)) continue;
      const data: unknown = pair.value.toJSON();
      if (!isRecord(data)) continue;
      const needs =
        typeof data.needs === 'string' ? [data.needs] : Array.isArray(data.needs) ? data.needs.filter((n) => typeof n === 'string') : [];
      const condition = str(data.if);
      const line = lineOf(pair.key, counter);
      jobs.set(id, {
        id,
        needs,
        continueOnError: data['continue-on-error'] === true,
        steps: readSteps(pair.value.get('steps', true), counter),
        ...(condition !== undefined ? { condition } : {}),
        ...(line !== undefined ? { line } : {}),
      });
    }
  }
  // A local (composite) action: its steps under `runs.steps` are one job.
  const runs = doc.contents.get('runs', true);
  if (isMap(runs)) {
    const steps = readSteps(runs.get('steps', true), counter);
    if (steps.length) jobs.set('', { id: '', needs: [], continueOnError: false, steps });
  }
  return { jobs };
}

/** `owner/repo[/path]` of a `uses:` value and the version it is pinned to, or null (local, docker). */
function actionRef(step: Step): { action: string; ref: string; major: number | null } | null {
  const uses = step.uses;
  if (!uses || uses.startsWith('./') || uses.startsWith('docker://')) return null;
  const at = uses.lastIndexOf('@');
  if (at < 0) return null;
  const ref = uses.slice(at + 1);
  const action = uses.slice(0, at).toLowerCase();
  // A commit-sha pin carries its version in the comment (`# v4.2.0`, `# 4.2.0`, `# tag=v4`).
  const version = /^[0-9a-f]{40}$/i.test(ref) ? (/\bv?(\d+)(?:\.\d+)*\b/.exec(step.usesComment ?? '')?.[0] ?? null) : ref;
  const major = version ? /^v?(\d+)(?:\.\d+)*$/.exec(version)?.[1] : undefined;
  return { action, ref: version ?? ref, major: major !== undefined ? Number(major) : null };
}

const squash = (s: string | undefined) => s?.replace(/\s+/g, ' ').trim();

/** Pairs base steps with head steps; returns base index → head step. */
function matchSteps(base: Step[], head: Step[]): Map<number, Step> {
  const out = new Map<number, Step>();
  const taken = new Set<number>();
  const pass = (key: (s: Step) => string | undefined) => {
    for (const b of base) {
      if (out.has(b.index)) continue;
      const k = key(b);
      if (k === undefined) continue;
      const h = head.find((s) => !taken.has(s.index) && key(s) === k);
      if (h) {
        out.set(b.index, h);
        taken.add(h.index);
      }
    }
  };
  pass((s) => s.id);
  pass((s) => s.name);
  pass((s) => actionRef(s)?.action);
  pass((s) => squash(s.run));
  // Leftovers of the same kind: a step edited in place (name added, command reworded) or replaced by
  // another. The most similar pairs first; a base step is removed only when nothing is left to pair.
  const restBase = base.filter((b) => !out.has(b.index));
  const restHead = head.filter((h) => !taken.has(h.index));
  const candidates = restBase.flatMap((b) =>
    restHead.filter((h) => (h.run !== undefined) === (b.run !== undefined)).map((h) => ({ b, h, score: similarity(b, h) })),
  );
  candidates.sort((x, y) => y.score - x.score || x.b.index - y.b.index || x.h.index - y.h.index);
  for (const { b, h } of candidates) {
    if (out.has(b.index) || taken.has(h.index)) continue;
    out.set(b.index, h);
    taken.add(h.index);
  }
  return out;
}

/** Share of words two steps have in common (name, action and command). */
function similarity(a: Step, b: Step): number {
  const words = (s: Step) => new Set(`${s.name ?? ''} ${s.uses ?? ''} ${s.run ?? ''}`.toLowerCase().match(/[a-z0-9_.-]+/g) ?? []);
  const x = words(a);
  const y = words(b);
  let common = 0;
  for (const w of x) if (y.has(w)) common++;
  return common / Math.max(1, x.size + y.size - common);
}

function stepLabel(s: Step): string {
  const what = s.name ?? s.id ?? s.uses ?? squash(s.run)?.slice(0, 60) ?? `#${s.index + 1}`;
  const run = squash(s.run);
  const command = run && (s.name ?? s.id) ? ` (\`${run.slice(0, 60)}\`)` : '';
  return `\`${what}\`${command}`;
}

/** Up to five names in backticks, then how many more. */
function names(list: string[]): string {
  const shown = list
    .slice(0, 5)
    .map((n) => `\`${n}\``)
    .join(', ');
  return list.length > 5 ? `${shown} and ${list.length - 5} more` : shown;
}

const jobLabel = (id: string) => (id === '' ? 'the action' : `job \`${id}\``);

/** Words of a step that runs a check: tests, linters, formatters, type checkers, builds, audits. */
const CHECK_WORDS =
  /\b(?:tests?|lint\w*|check|checks|verify|vet|clippy|fmt|format-check|prettier|eslint|ruff|flake8|mypy|pyright|tsc|type-?check\w*|audit|coverage|build|compile|pytest|jest|vitest|spec|validate|golangci\w*)\b/i;
/** Steps that prepare or report rather than check: installs, setup, caches, artifacts, messages. */
const PREPARES_NAME =
  /^\s*(?:install|set ?up|setup|prepare|cache|restore|save|check ?out|download|upload|harden|configure|set |extract|print|get |read |show |log |debug|notify)/i;
const PREPARES_RUN =
  /^\s*(?:(?:uv )?pip3? install|npm (?:i|install|ci)\b|pnpm (?:i|install)\b|yarn(?: install)?\s*$|apt(?:-get)? |sudo |go install|cargo install|brew |curl |wget |echo |export |mkdir |cd \S+\s*$)/;
const PREPARES_USES =
  /^(?:actions\/(?:checkout|cache|upload-artifact|download-artifact|setup-\w+|github-script)|[\w.-]+\/setup-[\w.-]+|step-security\/harden-runner)\b/i;

/** A step whose failure means something is wrong with the code: a check, not setup or reporting. */
/** Benchmarks and performance measurements report numbers; they do not gate correctness. */
const MEASURES = /\b(?:bench(?:mark)?s?|perf(?:ormance)?|measure\w*|profil\w*|size[- ]?(?:check|report|limit))\b/i;

function isCheck(s: Step): boolean {
  if (s.continueOnError) return false;
  if (MEASURES.test(`${s.name ?? ''} ${s.run ?? ''}`)) return false;
  if (s.name !== undefined && PREPARES_NAME.test(s.name)) return false;
  if (s.uses !== undefined && PREPARES_USES.test(s.uses)) return false;
  if (s.run !== undefined && s.name === undefined && PREPARES_RUN.test(s.run)) return false;
  return CHECK_WORDS.test(s.name ?? s.run ?? s.uses?.replace(/@.*$/, '') ?? '');
}

/** The same step (same command, or the same action under the same name) is still in some job of the head. */
function movedElsewhere(step: Step, head: Workflow): boolean {
  const run = squash(step.run);
  for (const job of head.jobs.values()) {
    for (const h of job.steps) {
      if (run !== undefined && squash(h.run) === run) return true;
      if (run === undefined && step.uses !== undefined && h.uses === step.uses && h.name === step.name) return true;
    }
  }
  return false;
}

/** The gating concerns of one workflow edit (empty when either side does not parse). */
export function gateConcerns(baseText: string | null, headText: string | null): GateConcern[] {
  const base = parseWorkflow(baseText);
  const head = parseWorkflow(headText);
  if (!base || !head) return [];
  const out: GateConcern[] = [];
  for (const [id, before] of base.jobs) {
    const after = head.jobs.get(id);
    if (!after) continue;
    const where = jobLabel(id);
    if (before.condition !== undefined && after.condition === undefined) {
      out.push({
        what: `removes the condition \`if: ${before.condition.slice(0, 80)}\` from ${where}, which now runs every time`,
        ...at(after.line),
      });
    }
    const dropped = before.needs.filter((n) => !after.needs.includes(n));
    if (dropped.length) {
      const list = names(dropped);
      const gone = dropped.filter((n) => !head.jobs.has(n));
      const why = gone.length ? ` (${names(gone)} ${gone.length === 1 ? 'is' : 'are'} no longer in the workflow)` : '';
      out.push({
        what: `stops ${where} from waiting for ${list}${why}: \`needs:\` had ${before.needs.length} job${before.needs.length === 1 ? '' : 's'}, now ${after.needs.length}`,
        ...at(after.line),
      });
    }
    if (!before.continueOnError && after.continueOnError) {
      out.push({ what: `sets \`continue-on-error: true\` on ${where}, so its failure no longer fails the run`, ...at(after.line) });
    }
    const pairs = matchSteps(before.steps, after.steps);
    for (const b of before.steps) {
      const h = pairs.get(b.index);
      if (!h) {
        if (isCheck(b) && !movedElsewhere(b, head))
          out.push({
            what: `removes the check step ${stepLabel(b)} from ${where}; no job of the head runs it any more`,
            ...at(after.line),
          });
        continue;
      }
      if (!b.continueOnError && h.continueOnError) {
        out.push({
          what: `sets \`continue-on-error: true\` on the step ${stepLabel(h)} of ${where}, so its failure no longer fails the job`,
          ...at(h.line),
        });
      }
      const was = actionRef(b);
      const now = actionRef(h);
      if (was?.major != null && now?.major != null && was.action === now.action && now.major < was.major) {
        out.push({
          what: `downgrades \`${now.action}\` from \`${was.ref}\` to \`${now.ref}\` in ${where} (a lower major version: older behaviour and fixes missing)`,
          ...at(h.line),
        });
      }
    }
  }
  return out;
}

function at(line: number | undefined): { line?: number } {
  return line !== undefined ? { line } : {};
}
