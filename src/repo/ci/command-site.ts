import { basename, commandWords, scriptLines, segments } from './command-words.js';
import type { Pins } from './job-pins.js';

/**
 * The neutral model every CI reader yields: one place a command is written, in the *unit* that runs
 * it (`workflow`, `make:lint`, `npm:lint`, `tox:lint`, `pre-commit`), with the units it calls
 * (`make lint`, `npm run lint`, `tox -e lint`, `pre-commit run`). What counts as a check or as the
 * test command is for the reader's caller to say.
 */
export interface CommandSite {
  /**
   * `run`: a command line; `uses`: a workflow step's action (`line` is `uses: <action>`); `rule`: a
   * Makefile rule line; `hook`: a pre-commit hook (`line` is `hook <id>`).
   */
  kind: 'run' | 'uses' | 'rule' | 'hook';
  unit: string;
  /** The file it was found in (`.github/workflows/ci.yml`, `Makefile`, …). */
  source: string;
  /** The line as written there (`\`-continued lines joined). */
  line: string;
  /** The whole script the line is one of (a step's `run:`, a package script), for what reads across lines. */
  script: string;
  /** The units this line calls (`make:lint`, `npm:test`, `tox:py`, `tox:*`, `pre-commit`). */
  calls: string[];
  /**
   * Why CI runs it without a failure failing the pull request's checks (`continue-on-error: true`,
   * a command ending in `|| true`, a job that does not run on pull requests), naming the step read.
   */
  lenient?: string;
  /** The Go and Rust releases the line's workflow job installs. */
  pins?: Pins;
  /** Workflow steps only: what the step says besides its command. */
  step?: WorkflowStep;
  /** Pre-commit hooks only. */
  hook?: PreCommitHook;
}

/** One hook of a pre-commit config. */
export interface PreCommitHook {
  /** The hook repository's URL, lower-cased (`local` for the repository's own hooks). */
  repo: string;
  id: string;
  /** The hook's `entry:` (the command a local hook runs). */
  entry?: string;
  args?: string[];
}

export interface WorkflowStep {
  /** The job's id (its key under `jobs:`). */
  job: string;
  /** The action of a `uses:` step and its `with:`. */
  uses?: string;
  with?: unknown;
  /** The step's environment: the workflow's `env:`, the job's, then the step's (string values; the innermost wins). */
  env: Record<string, string>;
  /** Neither the workflow's nor the job's `defaults.run.working-directory` nor the step's leaves the repository root. */
  atRoot: boolean;
  /** The step's `shell:`, when it names one. */
  shell?: string;
}

/** A line whose exit status is thrown away (`… || true`, `… || :`, `… || exit 0`, `… || echo …`). */
const MASKED = /\|\|\s*(?:true|:|exit\s+0|echo\b[^|&;]*)\s*;?\s*$/;

/** The sites of a script's lines; `lenient` is why the whole script's failures do not count, if they do not. */
export function sitesOfScript(unit: string, source: string, script: string, lenient?: string): CommandSite[] {
  return scriptLines(script).map((line) => {
    const masked = MASKED.exec(line);
    const why = lenient ?? (masked ? `the command ends in \`${masked[0].trim()}\`` : undefined);
    return { kind: 'run', unit, source, line, script, calls: callsOfLine(line), ...(why ? { lenient: why } : {}) };
  });
}

/** The simple commands of one line, `$(MAKE)` read as `make`. */
export const commandsOfLine = (line: string): string[] => segments(line.replace(/\$[({]MAKE[)}]/g, 'make'));

const callsOfLine = (line: string): string[] => commandsOfLine(line).flatMap(callsOfCommand);

/** The units one simple command calls: make targets, package scripts, tox environments, pre-commit. */
export function callsOfCommand(segment: string): string[] {
  const words = commandWords(segment);
  const tool = basename(words[0] ?? '');
  const rest = words.slice(1).filter((w) => !w.startsWith('-') || w === '-e');
  if (tool === 'make' || tool === 'gmake') {
    const targets = rest.filter((w) => !w.includes('='));
    return targets.length ? targets.map((t) => `make:${t}`) : ['make:'];
  }
  if (tool === 'npm' || tool === 'pnpm' || tool === 'yarn' || tool === 'bun') {
    const sub = rest[0];
    if (sub === 'run' || sub === 'run-script') return rest[1] ? [`npm:${rest[1]}`] : [];
    if (sub === 'test' || sub === 't') return ['npm:test'];
    if (sub && tool !== 'npm' && !['install', 'add', 'ci', 'i', 'exec', 'dlx'].includes(sub)) return [`npm:${sub}`];
    return [];
  }
  if (tool === 'tox') {
    const all = words.slice(1);
    const e = all.findIndex((w) => w === '-e' || w.startsWith('-e'));
    if (e < 0) return ['tox:*'];
    const list = all[e] === '-e' ? all[e + 1] : all[e]!.slice(2);
    return (list ?? '')
      .split(',')
      .filter(Boolean)
      .map((env) => `tox:${env}`);
  }
  if (tool === 'pre-commit' || tool === 'prek') return ['pre-commit'];
  return [];
}
