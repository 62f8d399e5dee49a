/**
 * Code blocks of a document: Markdown fences (``` and ~~~, any info string such as `c++` or
 * `{.python}`, indented fences inside list items, unclosed fences running to the end) and
 * reStructuredText literal blocks (`.. code-block:: x`, `.. code::`, `.. sourcecode::`, and
 * paragraphs ending in `::`).
 */

export interface CodeLine {
  /** 1-based line number in the document. */
  line: number;
  text: string;
}

export interface CodeBlock {
  /** 1-based line of the opening fence or rST marker. */
  openLine: number;
  /** 1-based line of the closing fence; null for an unclosed fence or an rST block. */
  closeLine: number | null;
  /** The info string / language ('' when none). */
  info: string;
  body: CodeLine[];
}

function toLines(text: string): string[] {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const OPEN_FENCE = /^[ \t]*(`{3,}|~{3,})(.*)$/;
const CLOSE_FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

/** Markdown fenced code blocks. */
export function markdownFences(text: string): CodeBlock[] {
  const lines = toLines(text);
  const blocks: CodeBlock[] = [];
  let open: { fence: string; block: CodeBlock } | null = null;
  for (const [i, raw] of lines.entries()) {
    const line = i + 1;
    if (open) {
      const close = CLOSE_FENCE.exec(raw);
      if (close && close[1]!.startsWith(open.fence[0]!) && close[1]!.length >= open.fence.length) {
        open.block.closeLine = line;
        blocks.push(open.block);
        open = null;
      } else {
        open.block.body.push({ line, text: raw });
      }
      continue;
    }
    const m = OPEN_FENCE.exec(raw);
    if (!m) continue;
    const fence = m[1]!;
    const info = m[2]!.trim();
    if (fence.startsWith('`') && info.includes('`')) continue; // inline code such as ```x``` is not a fence
    open = { fence, block: { openLine: line, closeLine: null, info, body: [] } };
  }
  if (open) blocks.push(open.block);
  return blocks;
}

const RST_DIRECTIVE = /^([ \t]*)\.\.[ \t]+([\w:-]+)::(.*)$/;
const CODE_DIRECTIVES = new Set(['code-block', 'code', 'sourcecode', 'highlight-block']);

const leadingBlanks = (l: string): string => /^[ \t]*/.exec(l)?.[0] ?? '';
const indentOf = (l: string) => leadingBlanks(l).replace(/\t/g, '    ').length;

/** reStructuredText literal blocks (code directives and `::` paragraphs). */
export function rstLiteralBlocks(text: string): CodeBlock[] {
  const lines = toLines(text);
  const blocks: CodeBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const raw = lines[i]!;
    const directive = RST_DIRECTIVE.exec(raw);
    let isMarker = false;
    let info = '';
    if (directive) {
      isMarker = CODE_DIRECTIVES.has(directive[2]!.toLowerCase());
      info = directive[3]!.trim();
    } else if (/::[ \t]*$/.test(raw) && !/^[ \t]*\.\./.test(raw)) {
      isMarker = true;
    }
    if (!isMarker) {
      i++;
      continue;
    }
    const base = indentOf(raw);
    let j = i + 1;
    // directive options (`:linenos:`) come first, before the blank line
    while (directive && j < lines.length && lines[j]!.trim().startsWith(':') && indentOf(lines[j]!) > base) j++;
    const body: CodeLine[] = [];
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (l.trim() === '') {
        body.push({ line: j + 1, text: '' });
        continue;
      }
      if (indentOf(l) <= base) break;
      body.push({ line: j + 1, text: l });
    }
    let first = 0;
    let end = body.length;
    while (end > first && body[end - 1]!.text === '') end--;
    while (first < end && body[first]!.text === '') first++;
    if (end > first) blocks.push({ openLine: i + 1, closeLine: null, info, body: dedent(body.slice(first, end)) });
    i = Math.max(j, i + 1);
  }
  return blocks;
}

function dedent(body: CodeLine[]): CodeLine[] {
  let cut = Infinity;
  for (const b of body) if (b.text.trim() !== '') cut = Math.min(cut, leadingBlanks(b.text).length);
  if (cut === Infinity) cut = 0;
  return body.map((b) => ({ line: b.line, text: b.text.slice(Math.min(cut, leadingBlanks(b.text).length)) }));
}

export function isRstPath(path: string): boolean {
  return /\.rst$/i.test(path);
}

/** The code blocks of a file: rST literal blocks for `.rst`, Markdown fences for everything else. */
export function codeBlocksOf(path: string, text: string): CodeBlock[] {
  return isRstPath(path) ? rstLiteralBlocks(text) : markdownFences(text);
}

/** Characters of code in the blocks (body lines joined by newlines). */
export function codeChars(blocks: readonly CodeBlock[]): number {
  let n = 0;
  for (const b of blocks) n += b.body.reduce((s, l) => s + l.text.length, 0) + Math.max(0, b.body.length - 1);
  return n;
}

/** A block's body as one normalised string (for "is this block still there?" comparisons). */
export function blockKey(block: CodeBlock): string {
  return block.body
    .map((l) => l.text.trim())
    .filter(Boolean)
    .join('\n');
}
