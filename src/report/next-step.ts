import type { NextAction } from '../core/decision.js';
import type { HostKind } from '../core/host-kind.js';

/**
 * What the person reading the report should do next, in the words of the host they read it in: CLI
 * commands and config keys in the terminal, pushes and workflow re-runs in the Action, `/slopgate`
 * commands only in the App (the one host that reads them).
 */
const SAME_EVERYWHERE = {
  none: 'nothing to do',
  annotate: 'read the advisory notes; nothing blocks the merge',
  'request-review': 'a maintainer has to review this change before it can merge',
  'label-stuck': 'a human has to look: the gate stopped without a way forward (see the reason)',
} as const;

const CLI_RERUN = 'run `slopgate check` again';

export const NEXT_STEP_TEXT: Record<HostKind, Record<NextAction, string>> = {
  cli: {
    ...SAME_EVERYWHERE,
    'fix-and-push': `fix the blocking findings, then ${CLI_RERUN}`,
    'offer-refine': `fix the blocking findings, or let \`slopgate refine\` try; then ${CLI_RERUN}`,
    'auto-refine': `fix the blocking findings, or let \`slopgate refine\` try; then ${CLI_RERUN}`,
    'ask-author':
      'answer what the findings ask: change the code, or record that the change is intended ' +
      `(\`manifests.allow\` or \`ignore.findings\` in the config, or a \`slopgate-ignore\` comment); then ${CLI_RERUN}`,
  },
  action: {
    ...SAME_EVERYWHERE,
    'fix-and-push': 'fix the blocking findings and push again',
    'offer-refine': 'fix the blocking findings and push again',
    'auto-refine': 'fix the blocking findings and push again',
    'ask-author':
      'answer the questions in the findings (a PR comment is enough), then push again; a maintainer who accepts the change ' +
      'records it in the config on the base branch and re-runs the workflow job',
  },
  app: {
    ...SAME_EVERYWHERE,
    'fix-and-push': 'fix the blocking findings and push again',
    'offer-refine': 'fix the blocking findings and push, or comment `/slopgate refine` to let the refiner try',
    'auto-refine': 'the refiner is trying a fix; the gate runs again on its commit',
    'ask-author': 'answer the questions in the findings (a PR comment is enough), then push or comment `/slopgate recheck`',
  },
};

export function nextStepText(next: string, host: HostKind): string {
  return (NEXT_STEP_TEXT[host] as Record<string, string>)[next] ?? next; // cast: widening only: looked up with any string
}

/** "round 2 of 3", where the host keeps rounds (the App); elsewhere every run stands alone and no round is shown. */
export function roundText(round: number, maxRounds: number, host: HostKind): string | null {
  return host === 'app' ? `round ${round} of ${maxRounds}` : null;
}
