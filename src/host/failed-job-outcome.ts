import type { CheckRunOutcome } from './check-outcome.js';
import { RERUN_ACTION } from './check-outcome.js';
import { errorMessage, GateInfraError } from '../core/errors.js';
import { infrastructureOutcome, type InfraErrorMode } from './queued-job.js';
import { escapeInline } from '../report/markdown-escape.js';

/** What the operator and the maintainers can do when the machine cannot run a check it must run. */
const REMEDY: Record<GateInfraError['kind'], string[]> = {
  sandbox: [
    "The test gate runs the pull request's tests only inside the bubblewrap sandbox, and it could not start on the machine running slopgate. Until it can, no pull request gets a verdict from this check: a change that breaks a test must not pass because the tests could not run.",
    '',
    '- **Operator:** install bubblewrap and allow unprivileged user namespaces (in Docker: the seccomp and AppArmor settings in the README; on Ubuntu 24.04: `kernel.apparmor_restrict_unprivileged_userns=0`), then press **Re-run**. Or allow unsandboxed runs with `SLOPGATE_TESTS_ISOLATION=best-effort` together with `tests.isolation: best-effort` in the config.',
    '- **Maintainers:** to gate without running tests, set `tests.enabled: false` in the config on the default branch.',
  ],
  resources: [
    'The test gate could not finish for a reason outside the pull request: a package registry or the network failed while the dependencies were installed, or the suite needs more than the limits the machine gives it. Nothing here is a finding against the code, and nothing passed.',
    '',
    '- **Operator:** press **Re-run** once the registry answers again; a suite that needs more disk or time than the defaults gets it from `tests.diskMb` / `tests.timeoutSec` in the config on the default branch.',
  ],
  tree: [
    'slopgate checks that the tree it runs the tests on is the commit, file by file, before anything runs; here it was not, so nothing ran. This is a fault on the machine running slopgate.',
    '',
    'Press **Re-run**. If it keeps failing, the App operator will find the details in the logs.',
  ],
};

/**
 * The check run of a job that failed before it could report: a {@link GateInfraError} (no sandbox, a
 * tree that is not the commit) concludes `action_required` whatever `onInfraError` says — the check was
 * not skipped on purpose, so it must not count as passing — with the reason and what to do; any other
 * error is an outage ({@link infrastructureOutcome}).
 */
export function failedJobOutcome(err: unknown, mode: InfraErrorMode): CheckRunOutcome {
  if (!(err instanceof GateInfraError)) return infrastructureOutcome(errorMessage(err), mode);
  return {
    conclusion: 'action_required',
    title: `Not about your code: ${err.message}`.slice(0, 250),
    summary: [
      // The message can name files of the pull request (a tree that is not the commit): escaped like any PR text.
      `slopgate did not gate this commit: **${escapeInline(err.message.slice(0, 1000))}**. This says nothing about the code in the pull request.`,
      '',
      ...REMEDY[err.kind],
    ].join('\n'),
    actions: [RERUN_ACTION],
  };
}
