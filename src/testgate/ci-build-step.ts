import type { Revision } from '../core/revision.js';
import { isWorkflowPath, workflowSites } from '../repo/ci/workflow-sites.js';
import { parsePlainTestCommand, plainWords } from './ci-test-command.js';

/**
 * The build a Node project's CI runs before its tests (`npm run build`, `pnpm -r build`, `yarn build`,
 * `npm run build --workspaces`, …), read from the base's workflows: the step before the test step in
 * the same job, at the repository's root. Workspaces whose packages import each other's build output
 * (`dist/`) have no suite that can start without it; the test gate runs it in each side's tree before
 * the suite, as CI does. Only a plain command is taken (no shell syntax, see {@link plainWords}).
 */

const BUILD =
  /^(?:npm run(?:-script)? build(?::[\w:-]+)?(?: (?:--workspaces|-ws|--if-present))*|pnpm (?:(?:-r|--recursive) )?(?:run )?build(?::[\w:-]+)?|yarn (?:workspaces (?:foreach (?:-A |--all )?)?run |run )?build(?::[\w:-]+)?)$/;

/** A plain test command, or a package manager's own `test` (what {@link parsePlainTestCommand} takes, plus `pnpm -r test`). */
function isTestLine(line: string): boolean {
  return parsePlainTestCommand(line) !== null || /^(?:npm|pnpm|yarn)(?: (?:-r|--recursive|run|workspaces run))* test\b/.test(line);
}

/** The build step before the first test step of a workflow's jobs, or null. */
export function workflowBuildBeforeTests(text: string): string | null {
  if (!/\bbuild\b/.test(text)) return null;
  let job: string | undefined;
  let build: string | null = null;
  for (const site of workflowSites('', text)) {
    if (site.kind !== 'run' || !site.step?.atRoot) continue;
    if (site.step.job !== job) {
      job = site.step.job;
      build = null;
    }
    const words = plainWords(site.line);
    if (!words) continue;
    const plain = words.join(' ');
    if (BUILD.test(plain)) build = plain;
    else if (isTestLine(plain) && build) return build;
  }
  return null;
}

/** The first build-before-tests step of the base's workflows (those named test or ci first). */
export async function findCiBuildStep(base: Revision): Promise<string | null> {
  const workflows = (await base.paths())
    .filter(isWorkflowPath)
    .sort((a, b) => Number(!/test|ci/i.test(a)) - Number(!/test|ci/i.test(b)) || a.localeCompare(b));
  const texts = await base.readTexts(workflows);
  for (const wf of workflows) {
    const build = workflowBuildBeforeTests(texts.get(wf) ?? '');
    if (build) return build;
  }
  return null;
}
