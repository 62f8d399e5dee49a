/**
 * A tool's own words as one inline code span: on one line, control characters dropped, fenced one
 * backtick longer than the longest run inside, so that nothing in it is read as Markdown (the
 * reporters keep code spans as code and escape everything else).
 */
export function toolWords(text: string, max = 300): string {
  let body = text
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (body.length > max) body = `${body.slice(0, max - 1)}…`;
  if (body === '') return '';
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(body) ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}
