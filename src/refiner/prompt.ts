import type { ChatMessage } from '../llm/port.js';
import type { Finding } from '../core/finding.js';

/** Longest retry feedback passed back to the model (the guard's own words, cut). */
export const MAX_FEEDBACK_CHARS = 1500;

const WRONG_RIGHT = `WRONG — a full-file answer that hides code behind a placeholder (the helper is deleted):
    def parse_header(line):
        return line.split(":", 1)

    # format_row remains unchanged

RIGHT — every definition you were not asked to change is copied back verbatim:
    def parse_header(line):
        return line.split(":", 1)

    def format_row(cells):
        return " | ".join(cells)`;

/** The system prompt: the scope rules, stated once, identical for every attempt. */
export const SYSTEM_PROMPT = `You repair a pull request so that the automated checks listed below pass. You answer with full file
contents; every answer is checked again by the same guards, and anything that breaks a rule is thrown away.

Rules:
1. Change only the files listed under FILES YOU MAY CHANGE. Any other path is refused.
2. Fix the findings and nothing else. The smallest change that fixes them is the right one.
3. Do not add new top-level imports unless a finding asks for one. Every symbol you import must exist
   (in the standard library, a declared dependency, or a file of this repository).
4. Do not change public signatures (names, parameters, return types of exported or top-level functions,
   classes and methods).
5. Never delete a definition that no finding is about. Return the WHOLE file: no placeholders such as
   "... rest unchanged", "# X remains unchanged" or "// existing code".
6. Never edit build manifests or lockfiles.

${WRONG_RIGHT}

Answer with one JSON object and nothing else:
{"files": [{"path": "<one of the listed paths>", "content": "<the complete new file>"}], "summary": "<one line, at most 200 characters>"}
Leave a file out of "files" when it needs no change.`;

function describeFinding(f: Finding): string {
  const where = f.path ? `${f.path}${f.line ? `:${f.line}` : ''}` : '(whole change)';
  return `- [${f.guard} ${f.category}] ${where}\n  problem: ${f.message}\n  fix: ${f.remediation}`;
}

/** Cuts text to `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 20)}\n… (cut)`;
}

export interface PromptInput {
  findings: readonly Finding[];
  /** The fenced files and their current contents. */
  files: ReadonlyMap<string, string>;
  /** The PR's diff of the fenced files (base..current), for context; cut when long. */
  diff: string;
  /** The previous attempt's failure, when this is the retry. */
  feedback?: string;
}

const MAX_DIFF_CHARS = 20_000;

/**
 * A fresh two-message conversation per attempt: the previous reply is not replayed (it would anchor the
 * model on its own mistake); the retry carries the guard's message instead.
 */
export function buildMessages(input: PromptInput): ChatMessage[] {
  const parts: string[] = [];
  parts.push(`FINDINGS TO FIX (${input.findings.length}):\n${input.findings.map(describeFinding).join('\n')}`);
  parts.push(`FILES YOU MAY CHANGE: ${[...input.files.keys()].join(', ')}`);
  for (const [path, content] of input.files) parts.push(`=== ${path} ===\n${content}\n=== end of ${path} ===`);
  if (input.diff.trim()) parts.push(`THE PULL REQUEST'S DIFF (context only):\n${clip(input.diff, MAX_DIFF_CHARS)}`);
  if (input.feedback) {
    parts.push(
      `YOUR PREVIOUS ANSWER WAS REJECTED AND REVERTED. The check said:\n${clip(input.feedback, MAX_FEEDBACK_CHARS)}\n` +
        'Do not send the same patch again. Keep every definition and signature you were not asked to change, ' +
        'do not invent functions or modules, and prefer the smallest change.',
    );
  }
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: parts.join('\n\n') },
  ];
}
