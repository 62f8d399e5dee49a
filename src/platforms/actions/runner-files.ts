import { appendFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';

/**
 * The files a runner hands a step: GITHUB_OUTPUT (step outputs) and GITHUB_STEP_SUMMARY (markdown
 * shown on the run's page). Both are appended to, never replaced: other steps of the job write there too.
 */

/** GitHub shows at most 1 MiB of a step's summary; stay below it. */
export const MAX_SUMMARY_BYTES = 1000 * 1024;

/** Appends `name<<delimiter` blocks, which hold any value (a random delimiter the value cannot contain). */
export async function setOutputs(file: string | undefined, outputs: Record<string, string>): Promise<void> {
  if (!file) return;
  let text = '';
  for (const [name, value] of Object.entries(outputs)) {
    let delimiter = `slopgate_${randomBytes(8).toString('hex')}`;
    while (value.includes(delimiter)) delimiter = `slopgate_${randomBytes(8).toString('hex')}`;
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  await appendFile(file, text, 'utf8');
}

/** Appends markdown to the job summary, cut (with a note) to what GitHub shows. */
export async function appendSummary(file: string | undefined, markdown: string): Promise<void> {
  if (!file) return;
  let text = markdown.endsWith('\n') ? markdown : `${markdown}\n`;
  if (Buffer.byteLength(text, 'utf8') > MAX_SUMMARY_BYTES) {
    const note = '\n\n… cut: GitHub shows at most 1 MiB of a step summary; the check run or the SARIF file has everything.\n';
    const buf = Buffer.from(text, 'utf8').subarray(0, MAX_SUMMARY_BYTES - Buffer.byteLength(note));
    // Drop a character cut in half at the end.
    text = buf.toString('utf8').replace(/\uFFFD$/, '') + note;
  }
  await appendFile(file, text, 'utf8');
}
