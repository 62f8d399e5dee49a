import type { CheckAnnotation } from '../../report/annotations.js';

/**
 * GitHub Actions workflow commands (`::error file=…,line=…::message`), escaped the way the runner
 * unescapes them: in the message `%`, CR and LF; in a property also `:` and `,`. Without this a file
 * name or a finding message from the pull request could end the command early or start a new one
 * (`\n::add-mask::…`, `\n::stop-commands::…`) on a line of its own.
 */

export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export type CommandLevel = 'error' | 'warning' | 'notice';

const LEVEL_OF: Record<CheckAnnotation['annotation_level'], CommandLevel> = { failure: 'error', warning: 'warning', notice: 'notice' };

/** One workflow command line: `::<name> k=v,k=v::message`. Properties with an undefined value are left out. */
export function workflowCommand(name: string, properties: Record<string, string | number | undefined>, message: string): string {
  const props = Object.entries(properties)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(message)}`;
}

/** A check-run annotation as a workflow annotation command (error, warning or notice) on its file and lines. */
export function annotationCommand(a: CheckAnnotation): string {
  return workflowCommand(
    LEVEL_OF[a.annotation_level],
    { file: a.path, line: a.start_line, endLine: a.end_line > a.start_line ? a.end_line : undefined, title: a.title || undefined },
    a.message,
  );
}
