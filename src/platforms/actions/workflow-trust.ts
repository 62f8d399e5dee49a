import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { EvidenceSchema } from '../../core/evidence.js';
import { git, gitMaybe } from '../../core/git.js';
import { isRecord } from '../../core/is-record.js';
import type { Guard, GuardFinding } from '../../core/guard.js';

/**
 * Under `pull_request` the workflow that runs the slopgate step is read from the PR's merge commit: the
 * PR can edit the step's inputs (`fail-level: none`, `tests: false`), its `if:` or `continue-on-error`,
 * or the workflow and local actions it uses. This decides whether the running workflow is the PR's and
 * whether the PR changed it; when it did, the inputs of this run are not to be trusted.
 */

export interface WorkflowTrust {
  /** The workflow file running this step (from GITHUB_WORKFLOW_REF), or undefined when it cannot be told. */
  path?: string;
  /** True when that file is read from the PR (its merge or head ref), so the PR could have edited it. */
  fromPr: boolean;
  /** Files of the workflow (the file itself, local reusable workflows and actions it uses) that the PR changes. */
  changed: string[];
  /** Why this run's inputs cannot be trusted, or undefined when they can. */
  untrusted?: string;
  /** The slopgate step's inputs and settings that differ between the base and the PR, e.g. "fail-level: fail → none". */
  inputChanges: string[];
  /** The slopgate step's `with:` on the base branch (undefined: the base has no such workflow or step). */
  baseInputs?: Record<string, string>;
}

export interface WorkflowTrustRequest {
  env: NodeJS.ProcessEnv;
  /** The checkout with the PR's history fetched. */
  dir: string;
  owner: string;
  repo: string;
  number: number;
  /**
   * The base branch's tip (where the trusted workflow is read) and its merge base with the head (the
   * changed files are diffed from there); for a merge queue, the target branch's tip, not the event's base.
   */
  baseSha: string;
  mergeBase: string;
  headSha: string;
  /** A merge queue's branch holding the head: a workflow read from it carries the queued PR's changes. */
  headRef?: string;
}

/** `owner/repo/.github/workflows/x.yml@refs/pull/7/merge` → its parts. */
export function parseWorkflowRef(ref: string | undefined): { repo: string; path: string; ref: string } | undefined {
  const m = /^([^/]+\/[^/]+)\/(.+?\.ya?ml)@(.+)$/.exec(ref?.trim() ?? '');
  return m ? { repo: m[1]!, path: m[2]!, ref: m[3]! } : undefined;
}

interface Step {
  uses?: string;
  id?: string;
  with: Record<string, string>;
  settings: Record<string, string>;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The steps of a workflow file by job id (an unparseable file has none). */
function stepsOf(source: string | null): Map<string, { job: Record<string, string>; steps: Step[] }> {
  const out = new Map<string, { job: Record<string, string>; steps: Step[] }>();
  let doc: unknown;
  try {
    doc = parseYaml(source ?? '');
  } catch {
    return out;
  }
  const jobs = isRecord(doc) && isRecord(doc.jobs) ? doc.jobs : {};
  for (const [id, job] of Object.entries(jobs)) {
    if (!isRecord(job)) continue;
    const jobSettings: Record<string, string> = {};
    for (const k of ['if', 'continue-on-error', 'uses', 'with']) if (job[k] !== undefined) jobSettings[k] = text(job[k]);
    const steps: Step[] = (Array.isArray(job.steps) ? job.steps : []).filter(isRecord).map((s) => ({
      ...(typeof s.uses === 'string' ? { uses: s.uses } : {}),
      ...(typeof s.id === 'string' ? { id: s.id } : {}),
      with: isRecord(s.with) ? Object.fromEntries(Object.entries(s.with).map(([k, v]) => [k, text(v)])) : {},
      settings: Object.fromEntries(['if', 'continue-on-error', 'env'].filter((k) => s[k] !== undefined).map((k) => [k, text(s[k])])),
    }));
    out.set(id, { job: jobSettings, steps });
  }
  return out;
}

/** The slopgate step: the step using this action's repository, else the step with this step's id, else one using "slopgate". */
function findStep(
  jobs: Map<string, { job: Record<string, string>; steps: Step[] }>,
  env: NodeJS.ProcessEnv,
): { job: Record<string, string>; step: Step } | undefined {
  const wantedJob = env.GITHUB_JOB?.trim();
  const actionRepo = env.GITHUB_ACTION_REPOSITORY?.trim().toLowerCase();
  const stepId = env.GITHUB_ACTION?.trim();
  const ordered = [...jobs].sort(([a], [b]) => Number(b === wantedJob) - Number(a === wantedJob));
  const tests: ((s: Step) => boolean)[] = [
    (s) =>
      Boolean(
        actionRepo && s.uses && (s.uses.toLowerCase().startsWith(`${actionRepo}@`) || s.uses.toLowerCase().startsWith(`${actionRepo}/`)),
      ),
    (s) => Boolean(stepId && s.id === stepId),
    (s) => /slopgate/i.test(s.uses ?? ''),
  ];
  for (const test of tests) {
    for (const [, j] of ordered) {
      const step = j.steps.find(test);
      if (step) return { job: j.job, step };
    }
  }
  return undefined;
}

/** "fail-level: fail → none", "tests: (not set) → false". */
function differences(label: string, before: Record<string, string>, after: Record<string, string>): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.filter((k) => before[k] !== after[k]).map((k) => `${label}${k}: ${before[k] ?? '(not set)'} → ${after[k] ?? '(not set)'}`);
}

/** Local workflows and actions a workflow uses (`uses: ./path`), as repository paths. */
function localUses(jobs: Map<string, { job: Record<string, string>; steps: Step[] }>): string[] {
  const out: string[] = [];
  for (const [, j] of jobs) {
    for (const uses of [j.job.uses, ...j.steps.map((s) => s.uses)]) {
      if (!uses?.startsWith('./')) continue;
      const path = uses.slice(2).replace(/@.*$/, '').replace(/\/+$/, '');
      // `uses: ./` is the repository's own root action: its metadata file, not every file of the repository.
      out.push(...(path ? [path] : ['action.yml', 'action.yaml']));
    }
  }
  return out;
}

/** Decides whether this run's workflow can be trusted; see {@link WorkflowTrust}. */
export async function workflowTrust(req: WorkflowTrustRequest): Promise<WorkflowTrust> {
  const wf = parseWorkflowRef(req.env.GITHUB_WORKFLOW_REF);
  if (!wf) {
    return {
      fromPr: true,
      changed: [],
      inputChanges: [],
      untrusted:
        'the workflow that runs slopgate is unknown (GITHUB_WORKFLOW_REF is not set), so whether this PR changed its inputs cannot be told — a maintainer must review it',
    };
  }
  // Another repository's workflow, or one read from a branch or tag (a ruleset's required workflow): not the PR's.
  // A merge queue's branch is the exception: it is the base plus the queued PR's changes.
  const fromPr =
    wf.repo.toLowerCase() === `${req.owner}/${req.repo}`.toLowerCase() &&
    (new RegExp(`^refs/pull/${req.number}/(merge|head)$`).test(wf.ref) ||
      (req.headRef !== undefined && wf.ref === `refs/heads/${req.headRef}`));
  const [baseText, headText] = await Promise.all([
    gitMaybe(req.dir, ['show', `${req.baseSha}:${wf.path}`]),
    gitMaybe(req.dir, ['show', `${req.headSha}:${wf.path}`]),
  ]);
  const baseJobs = stepsOf(baseText);
  const headJobs = stepsOf(headText);
  const baseStep = findStep(baseJobs, req.env);
  const headStep = findStep(headJobs, req.env);
  const inputChanges = [
    ...differences('', baseStep?.step.with ?? {}, headStep?.step.with ?? {}),
    ...differences('step ', baseStep?.step.settings ?? {}, headStep?.step.settings ?? {}),
    ...differences('job ', baseStep?.job ?? {}, headStep?.job ?? {}),
  ];
  const base = { path: wf.path, fromPr, inputChanges, ...(baseStep ? { baseInputs: baseStep.step.with } : {}) };
  if (!fromPr) return { ...base, changed: [] };
  const watched = [wf.path, ...localUses(baseJobs), ...localUses(headJobs)];
  const diff = await git(req.dir, ['diff', '--name-only', '-z', '--no-renames', req.mergeBase, req.headSha]);
  const changedFiles = diff.split('\0').filter(Boolean);
  const changed = [...new Set(changedFiles.filter((f) => watched.some((w) => f === w || f.startsWith(`${w}/`))))].sort();
  if (changed.length === 0) return { ...base, changed };
  const also = changed.filter((f) => f !== wf.path);
  // A queue entry is compared with its target branch: the change may be a PR queued ahead of this one.
  const who = req.headRef ? ['this merge queue entry (with the entries queued ahead of it)', 'this entry'] : ['this PR', 'this PR'];
  return {
    ...base,
    changed,
    untrusted: `${who[0]} changes the workflow that runs slopgate (${wf.path}${also.length ? `, and ${also.join(', ')} that it uses` : ''}); its inputs cannot be trusted for ${who[1]} — a maintainer must review it`,
  };
}

/** The workflow that runs slopgate changed in the PR: which files, and which of the slopgate step's inputs. */
const workflowTrustEvidence = z.object({
  workflow: z.string().nullable(),
  changed: z.array(z.string()),
  inputChanges: z.array(z.string()),
});

/** Every evidence shape the Action's workflow check writes. */
const WORKFLOW_TRUST_EVIDENCE: readonly EvidenceSchema[] = [workflowTrustEvidence];

/**
 * The Action's own check, run with the guards: a finding (fail, routed to ask-author) when this run's
 * workflow cannot be trusted, naming the inputs the PR changed. Nothing in the PR can dismiss it: it is
 * not a guard of the registry, so `guards.disable`, `--skip` and labels do not reach it.
 */
export function workflowTrustGuard(trust: WorkflowTrust): Guard {
  return {
    id: 'action',
    name: 'workflow running slopgate',
    evidence: WORKFLOW_TRUST_EVIDENCE,
    runsWithoutFiles: true,
    appliesTo: () => false,
    checkAll(): GuardFinding[] {
      if (!trust.untrusted) return [];
      const inputs = !trust.path
        ? ''
        : trust.inputChanges.length
          ? ` The slopgate step changed: ${trust.inputChanges.join('; ')}.`
          : ' The slopgate step itself is as on the base.';
      return [
        {
          category: 'gate-workflow-changed',
          severity: 'fail',
          ...(trust.path ? { path: trust.path } : {}),
          message: `${trust.untrusted[0]!.toUpperCase()}${trust.untrusted.slice(1)}.${inputs} This run used the base branch's inputs instead.`,
          remediation:
            'A maintainer reviews the workflow change and merges it with a ruleset bypass, or lands it in a pull request of its own; a pull request must not change the workflow that gates it.',
          evidence: {
            workflow: trust.path ?? null,
            changed: trust.changed,
            inputChanges: trust.inputChanges,
          } satisfies z.infer<typeof workflowTrustEvidence>,
        },
      ];
    },
  };
}
