import type { ReportSections } from '../core/report-sections.js';
import type { SlopgateConfig } from '../core/config-schema.js';
import type { GuardFinding } from '../core/guard.js';
import type { PatchSet } from '../core/patch-set.js';
import type { Logger } from '../core/trace.js';
import type { JsonModel } from '../llm/port.js';
import { diffView } from './diff-view.js';
import { qaCrashFinding, qaFindings } from './findings.js';
import { forensicsOf } from './forensics.js';
import { runQaPhase } from './phase.js';
import { crashReason, crashedSection, notRunSection, ranSection } from './section.js';
import type { QaResult, QaSection } from './types.js';

/** What a caller hands the gate to run the Q&A phase (`GateOptions.qa`). */
export interface QaGateOptions {
  questioner?: JsonModel;
  defender?: JsonModel;
  /** Why no model is available (shown as the not-run reason when a model is missing). */
  noModelReason?: string;
  /** Run even when `qa.enabled` is false (the CLI's `--qa`). */
  force?: boolean;
  /** The PR's title and description (for the CLI: the head commit's subject and body). */
  title?: string;
  body?: string;
  /** Receives the full result (questions, answers, the defender's revised patch) for the refiner. */
  onResult?: (result: QaResult) => void;
  signal?: AbortSignal;
}

export interface QaStageInput {
  patch: PatchSet;
  findings: readonly GuardFinding[];
  sections: ReportSections;
  config: SlopgateConfig;
  round: number;
  log: Logger;
}

/**
 * The Q&A phase as a gate stage: never throws. Returns the report section and the findings to route
 * (one per gap, or one critic-error when the phase crashed). `undefined` options mean the caller did
 * not ask for Q&A; with `qa.enabled` the section then says why it did not run.
 */
export async function runQaStage(
  opts: QaGateOptions | undefined,
  input: QaStageInput,
): Promise<{ section?: QaSection; findings: GuardFinding[] }> {
  if (!opts?.force && !input.config.qa.enabled) {
    return opts ? { section: notRunSection('disabled (qa.enabled is false)'), findings: [] } : { findings: [] };
  }
  if (!opts?.questioner || !opts.defender) {
    const reason = opts?.noModelReason ?? 'no model configured (set SLOPGATE_LLM_BASE_URL and SLOPGATE_LLM_MODEL)';
    return { section: notRunSection(reason), findings: [] };
  }
  if (input.patch.files.length === 0) return { section: notRunSection('the PR changes no files'), findings: [] };
  try {
    const diff = diffView(input.patch, input.config.qa.maxDiffChars);
    const result = await runQaPhase(
      { questioner: opts.questioner, defender: opts.defender },
      {
        pr: { title: opts.title ?? '', body: opts.body ?? '' },
        diff: diff.text,
        files: input.patch.files,
        forensics: forensicsOf({ ...input, maxRounds: input.config.maxRounds }),
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
    );
    const section = ranSection(result);
    const { handled, gap, uncertain } = section;
    input.log.info({ event: 'qa.answers', handled, gap, uncertain, roundTrip: result.roundTrip }, 'qa.answers');
    opts.onResult?.(result);
    return { section, findings: qaFindings(result) };
  } catch (err) {
    const reason = crashReason(err);
    input.log.warn({ event: 'qa.crashed', reason }, 'qa.crashed');
    return { section: crashedSection(reason), findings: [qaCrashFinding(reason)] };
  }
}
