import type { ChangedFile, PatchSet } from '../core/patch-set.js';

export interface DiffView {
  /** `path` then numbered head lines (`+12 text`) and removed base lines (`-b7 text`). */
  text: string;
  files: number;
  truncated: boolean;
}

const MAX_FILES = 12;

function lines(text: string | null): string[] {
  return text === null ? [] : text.split('\n');
}

function fileView(file: ChangedFile, perFile: number): string {
  const head = lines(file.head.text);
  const base = lines(file.base.text);
  const out = [`=== ${file.path} (${file.status}${file.oldPath ? ` from ${file.oldPath}` : ''})`];
  if (file.head.text === null && file.status !== 'deleted') out.push('(head text not readable)');
  for (const r of file.removed) for (let l = r.start; l <= r.end && l <= base.length; l++) out.push(`-b${l} ${base[l - 1]}`);
  for (const r of file.added) for (let l = r.start; l <= r.end && l <= head.length; l++) out.push(`+${l} ${head[l - 1]}`);
  const text = out.join('\n');
  return text.length > perFile ? `${text.slice(0, perFile)}\n… (file cut)` : text;
}

/**
 * The PR's changes with line numbers a citation can use: added lines carry head numbers (`+12`),
 * removed lines base numbers (`-b7`). Capped at `maxChars` over the first files.
 */
export function diffView(patch: PatchSet, maxChars: number): DiffView {
  const files = patch.files.slice(0, MAX_FILES);
  const perFile = Math.max(500, Math.floor(maxChars / Math.max(1, files.length)));
  let text = files.map((f) => fileView(f, perFile)).join('\n');
  let truncated = patch.files.length > files.length;
  if (text.length > maxChars) {
    text = text.slice(0, maxChars);
    truncated = true;
  }
  if (truncated) text += `\n… (diff cut: ${patch.files.length} changed files in all)`;
  return { text, files: files.length, truncated };
}
