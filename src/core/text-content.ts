/** Why a side of a changed file has no text to check. */
export type NoTextReason = 'absent' | 'binary' | 'too-large' | 'not-utf8' | 'symlink' | 'submodule';

export const NO_TEXT_REASON_LABEL: Record<NoTextReason, string> = {
  absent: 'the file does not exist on this side',
  binary: 'binary content',
  'too-large': 'larger than the size cap',
  'not-utf8': 'not valid UTF-8',
  symlink: 'a symbolic link',
  submodule: 'a submodule (gitlink)',
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes blob bytes to text, or says why it is not text (NUL bytes → binary, invalid UTF-8). */
export function decodeText(bytes: Buffer): { text: string } | { reason: 'binary' | 'not-utf8' } {
  const probe = bytes.subarray(0, 8000);
  if (probe.includes(0)) return { reason: 'binary' };
  try {
    let text = utf8.decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return { text };
  } catch {
    return { reason: 'not-utf8' };
  }
}

/** Splits text into lines the way editors number them (a trailing newline does not add a line). */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
