/**
 * A strict reader of what would be live on GitHub in a Markdown text slopgate posts: mentions, issue
 * references, images, links (inline, by reference, auto-linked), raw HTML and HTML comments, character
 * references, outside code blocks and code spans. It over-approximates GitHub's renderer on purpose:
 * anything it reports might be live.
 */

/** slopgate's own links point here in these tests; any other link target is PR-controlled. */
export const OWN_URL = 'https://checks.example/run/1';
/** slopgate's markers and the tags it writes itself. */
const OWN_TAGS = /<!-- slopgate:(?:finding:[\w-]+|refine|start|end) -->|<\/?(?:details|summary|sub)>/g;

const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export interface OwnMarkup {
  /** Links slopgate makes itself (its check run). */
  urls?: string[];
  /** Logins slopgate mentions itself (the maintainer who gave a command). */
  mentions?: string[];
}

/** Removes fenced code blocks, then code spans (CommonMark: line-bound here, a backslash makes a backtick literal). */
function outsideCode(markdown: string): string {
  const kept: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1]!.startsWith(fence[0]!) && m[1]!.length >= fence.length && line.trim() === m[1]) fence = null;
      continue;
    }
    if (m) {
      fence = m[1]!;
      continue;
    }
    kept.push(withoutSpans(line));
  }
  return kept.join('\n');
}

function withoutSpans(line: string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    if (line[i] === '\\' && i + 1 < line.length) {
      out += line.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (line[i] !== '`') {
      out += line.charAt(i);
      i++;
      continue;
    }
    const run = /^`+/.exec(line.slice(i))![0];
    const close = line.slice(i + run.length).search(new RegExp(`(?<!\`)${run}(?!\`)`));
    if (close < 0) {
      out += run;
      i += run.length;
      continue;
    }
    out += ' ';
    i += run.length + close + run.length;
  }
  return out;
}

/** What is live on GitHub in `text` outside code: every hit is PR text that survived. */
export function liveMarkup(text: string, own: OwnMarkup = {}): string[] {
  let mine = text.replace(OWN_TAGS, '');
  for (const url of own.urls ?? [OWN_URL]) mine = mine.replace(new RegExp(`\\]\\(${quote(url)}\\)`, 'g'), '');
  for (const login of own.mentions ?? ['maint']) mine = mine.replace(new RegExp(`@${quote(login)}\\b`, 'g'), '');
  const plain = outsideCode(mine);
  const rules: [string, RegExp][] = [
    ['mention or e-mail', /(^|[^\w\u200b])@[A-Za-z0-9_-]/],
    ['mention after a word', /\w@[A-Za-z0-9]/],
    ['image', /!\[/],
    ['inline link', /\]\(/],
    ['reference link', /\]\[|\]:/],
    ['HTML or comment', /<[A-Za-z!/?]/],
    ['end of a comment', /--!?>/],
    ['URL', /[A-Za-z]:\/\//],
    ['www autolink', /www\./i],
    ['character reference', /&#|&[A-Za-z][A-Za-z0-9]*;/],
    ['issue reference', /#\d|GH-\d/i],
  ];
  return rules.flatMap(([name, re]) => {
    const hit = re.exec(plain);
    return hit ? [`${name}: ${plain.slice(Math.max(0, hit.index - 20), hit.index + 20)}`] : [];
  });
}
