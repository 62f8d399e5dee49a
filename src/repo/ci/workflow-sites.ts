import { parse as parseYaml } from 'yaml';
import { isRecord } from '../../core/is-record.js';
import { sitesOfScript, type CommandSite, type WorkflowStep } from './command-site.js';
import { jobPins, spanText } from './job-pins.js';

/**
 * The command sites of one GitHub Actions workflow: every `run:` line and every `uses:` step of every
 * job, in job and step order, each with why a failure there does not fail the pull request (the
 * workflow's `on:` names no pull request event, the job's `continue-on-error` or `if:`, the step's
 * `continue-on-error`, a line ending in `|| true`), the job's Go and Rust pins, the step's
 * environment, shell and whether it runs at the repository root.
 */

export const isWorkflowPath = (p: string): boolean => /^\.github\/workflows\/[^/]+\.ya?ml$/.test(p);

/** A `defaults:` (or a step) with a `run.working-directory`, that directory. */
export function workingDirectoryOf(v: unknown): string | undefined {
  const wd = isRecord(v) && isRecord(v.run) ? v.run['working-directory'] : undefined;
  return typeof wd === 'string' ? wd : undefined;
}

export const atRoot = (wd: string | undefined): boolean => wd === undefined || wd === '.' || wd === './';

const isTrue = (v: unknown) => v === true || v === 'true';

/** Events that run a workflow for a pull request (a push to the pull request's branch is one). */
const PR_EVENTS = ['pull_request', 'pull_request_target', 'merge_group', 'push'];

/** The events a workflow's `on:` names. */
function eventsOf(on: unknown): string[] {
  if (typeof on === 'string') return [on];
  if (Array.isArray(on)) return on.filter((e): e is string => typeof e === 'string');
  return isRecord(on) ? Object.keys(on) : [];
}

/**
 * Why a job's `if:` keeps it from running for this pull request, when it plainly does: it asks for
 * an event that is not a pull request's (`github.event_name == 'release'`), a tag, or a push to a
 * branch other than the base (`github.ref == 'refs/heads/release'`). Any other condition is taken
 * as running.
 */
function ifExcludesPr(cond: string, baseBranch: string | undefined): boolean {
  if (/pull_request|merge_group/.test(cond) || /\|\||!=|!\s*(?:startsWith|contains)/.test(cond)) return false;
  const event = /github\.event_name\s*==\s*['"]([a-z_]+)['"]/.exec(cond)?.[1];
  if (event && !PR_EVENTS.includes(event)) return true;
  if (/startsWith\(\s*github\.ref\s*,\s*['"]refs\/tags\//.test(cond)) return true;
  const branch = /github\.ref\s*==\s*['"]refs\/heads\/([^'"]+)['"]/.exec(cond)?.[1];
  return branch !== undefined && baseBranch !== undefined && branch !== baseBranch;
}

/** The string values of an `env:` map. */
const stringsOf = (v: unknown): Record<string, string> =>
  isRecord(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};

/** Every site of one workflow's text (none when it is not YAML or has no jobs); `baseBranch` reads job `if:`s on `github.ref`. */
export function workflowSites(source: string, text: string, baseBranch?: string): CommandSite[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    return [];
  }
  if (!isRecord(doc) || !isRecord(doc.jobs)) return [];
  const out: CommandSite[] = [];
  const events = eventsOf(doc.on ?? doc.true);
  const workflowLenient =
    events.length > 0 && !events.some((e) => PR_EVENTS.includes(e))
      ? `the workflow runs only on ${events.map((e) => `\`${e}\``).join(', ')}, not for pull requests`
      : undefined;
  const workflowAtRoot = atRoot(workingDirectoryOf(doc.defaults));
  for (const [jobName, job] of Object.entries(doc.jobs)) {
    if (!isRecord(job) || !Array.isArray(job.steps)) continue;
    const pins = jobPins(source, jobName, job.steps);
    const jobAtRoot = workflowAtRoot && atRoot(workingDirectoryOf(job.defaults));
    let jobLenient = workflowLenient;
    if (!jobLenient && isTrue(job['continue-on-error'])) jobLenient = `job \`${spanText(jobName)}\` has \`continue-on-error: true\``;
    if (!jobLenient && typeof job.if === 'string' && ifExcludesPr(job.if, baseBranch))
      jobLenient = `job \`${spanText(jobName)}\` runs only when \`${spanText(job.if)}\``;
    for (const step of job.steps) {
      if (!isRecord(step)) continue;
      const stepName = typeof step.name === 'string' ? step.name : typeof step.uses === 'string' ? step.uses : 'run';
      const lenient =
        jobLenient ??
        (isTrue(step['continue-on-error'])
          ? `its step (job \`${spanText(jobName)}\`, step \`${spanText(stepName)}\`) has \`continue-on-error: true\``
          : undefined);
      const wd = step['working-directory'];
      const context: WorkflowStep = {
        job: jobName,
        env: { ...stringsOf(doc.env), ...stringsOf(job.env), ...stringsOf(step.env) },
        atRoot: jobAtRoot && atRoot(typeof wd === 'string' ? wd : undefined),
        ...(typeof step.shell === 'string' ? { shell: step.shell } : {}),
      };
      const placed = (site: CommandSite): CommandSite => ({ ...site, step: context, ...(pins.go || pins.rust ? { pins } : {}) });
      if (typeof step.run === 'string') out.push(...sitesOfScript('workflow', source, step.run, lenient).map(placed));
      if (typeof step.uses === 'string') {
        const uses = step.uses;
        const calls = /^pre-commit\/action@/i.test(uses) || /^pre-commit-ci\/lite-action@/i.test(uses) ? ['pre-commit'] : [];
        out.push({
          ...placed({ kind: 'uses', unit: 'workflow', source, line: `uses: ${uses}`, script: '', calls, ...(lenient ? { lenient } : {}) }),
          step: { ...context, uses, with: step.with },
        });
      }
    }
  }
  return out;
}
