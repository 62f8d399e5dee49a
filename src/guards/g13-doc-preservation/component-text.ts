import { isAddedLine, type ChangedFile } from '../../core/patch-set.js';
import { textLines } from '../shared/doc-files.js';

/**
 * Doc text that moved into a page component. A site rebuild often replaces a Markdown page's content
 * (a VitePress `layout: home` page whose hero and features sit in YAML frontmatter) with a Vue, Svelte,
 * Astro, JSX or HTML component that renders the same sentences. Those files are not docs, so their
 * lines never match a doc line verbatim: here the component's added text is read with its markup
 * stripped, and a removed doc line is reduced to its words, before looking one up in the other.
 */

/** Files whose added text can take over a doc page's prose. */
const COMPONENT = /\.(vue|svelte|astro|html?|jsx|tsx|njk|hbs|liquid|ejs|erb)$/i;

/** Shorter phrases ("Vitest", "home") are too common to prove a move. */
const MIN_PHRASE_CHARS = 12;

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&apos;': "'",
  '&nbsp;': ' ',
};

/** Tags removed, a few entities decoded, whitespace collapsed. */
function plain(text: string): string {
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(?:amp|lt|gt|quot|#39|apos|nbsp);/g, (e) => ENTITIES[e] ?? e)
    .replace(/\s+/g, ' ')
    .trim();
}

/** True for a file whose text can hold a doc page's content (a component or template). */
export function isComponentFile(path: string): boolean {
  return COMPONENT.test(path);
}

/**
 * The text of the lines `file` added, markup stripped, runs of added lines joined (an element's text is
 * often wrapped over several lines). Runs are kept apart so a phrase never spans two of them.
 */
export function addedComponentText(file: ChangedFile): string {
  const runs: string[] = [];
  let run: string[] = [];
  textLines(file.head.text ?? '').forEach((line, i) => {
    if (isAddedLine(file, i + 1)) run.push(line);
    else if (run.length) {
      runs.push(plain(run.join('\n')));
      run = [];
    }
  });
  if (run.length) runs.push(plain(run.join('\n')));
  return runs.filter(Boolean).join('\n');
}

/**
 * The words of a doc line, without a YAML key, a list, heading or quote marker, quotes or inline tags;
 * null when what is left is too short or a single word to prove anything.
 */
export function phraseOf(line: string): string | null {
  const words = plain(
    line
      .trim()
      .replace(/^(?:-\s+)?[A-Za-z_][\w-]*:\s+/, '')
      .replace(/^(?:[#>*+-]+\s+|\d+\.\s+)+/, '')
      .replace(/^(['"])(.*)\1$/, '$2'),
  );
  return words.length >= MIN_PHRASE_CHARS && words.includes(' ') ? words : null;
}
