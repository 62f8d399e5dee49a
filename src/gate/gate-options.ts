import type { SlopgateConfig } from '../core/config-schema.js';
import type { Guard, GuardServices } from '../core/guard.js';
import type { Logger, TracePhase } from '../core/trace.js';
import type { PriorDismissal } from '../core/apply-dismissals.js';
import type { QaGateOptions } from '../qa/stage.js';
import type { NavigatorGateOptions } from '../navigator/navigator.js';
import type { DecideOptions } from '../routing/types.js';

export interface GateOptions {
  repoDir: string;
  base: string;
  head: string;
  /** Display name of the repository in reports (defaults to the directory). */
  repoName?: string;
  config?: SlopgateConfig;
  /** Where `config` came from, as the report names it (`.github/slopgate.yml at main (abc1234)`, the embedded defaults, …). */
  configSource?: string;
  guards: Guard[];
  /** Run only these guard ids. */
  only?: string[];
  /** Guard ids to skip (besides config `guards.disable`), with the reason shown in the report. */
  skip?: Record<string, string>;
  phase?: TracePhase;
  /** Extra G1 sanctions: globs allowed by a label or a `/slopgate allow` command. */
  sanctions?: string[];
  /** What the report says about the PR's sanctions (which apply, which lapsed, which are ignored); Markdown. */
  sanctionNotes?: string[];
  log?: Logger;
  services?: GuardServices;
  round?: number;
  decide?: Omit<DecideOptions, 'strict' | 'round' | 'maxRounds'>;
  /**
   * Run static guards in guard threads, where their budget can stop synchronous code (default: on,
   * unless SLOPGATE_GUARD_THREADS=0). Where each guard runs follows from its `needs`
   * (gate/thread-placement.ts): one that must run in this process (G8, G16) or reads a service this run
   * holds only here (G9 with the store's history, G14 with an injected link checker) stays here, as
   * does any guard outside the registry without a `workerModule`.
   */
  guardThreads?: boolean;
  /** The optional Q&A self-consistency phase (src/qa): its two models and the PR's title and body. */
  qa?: QaGateOptions;
  /** The optional tier-3 navigator (src/navigator/navigator.ts): its model. */
  navigator?: NavigatorGateOptions;
  /** Dismissals recorded earlier for this PR (`/slopgate dismiss`, from the store) and the PR author for inline ones. */
  dismissals?: { prior?: readonly PriorDismissal[]; author?: string };
}
