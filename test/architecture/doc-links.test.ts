import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Every relative link in the README, CONTRIBUTING, docs/ and the guards' READMEs leads to a file, and an anchor to a heading of it. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((d) => {
    const path = `${dir}/${d.name}`;
    if (d.isDirectory()) return d.name === 'fixtures' || d.name === 'node_modules' ? [] : markdownUnder(path);
    return d.name.endsWith('.md') ? [path] : [];
  });
}

const PAGES = ['README.md', 'CONTRIBUTING.md', ...markdownUnder('docs'), ...markdownUnder('src')];

/** Text outside fenced code blocks and code spans, where a `](…)` is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; a repeated one gets -1, -2, … */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const noCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of noCode.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const text = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function brokenLinks(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const broken: string[] = [];
  for (const m of prose(text).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/i.test(target) || target.startsWith('/')) continue;
    const [file, anchor] = target.split('#') as [string, string | undefined];
    const path = file === '' ? page : relative(ROOT, join(ROOT, dirname(page), decodeURI(file)));
    if (!existsSync(join(ROOT, path))) {
      broken.push(`${page}: ${target} (no such file)`);
      continue;
    }
    if (anchor && path.endsWith('.md') && statSync(join(ROOT, path)).isFile()) {
      if (!anchorsOf(readFileSync(join(ROOT, path), 'utf8')).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  return broken;
}

describe('the links of the docs', () => {
  it('lead to files that exist and headings they have', () => {
    expect(PAGES.length).toBeGreaterThan(30);
    expect(PAGES.flatMap(brokenLinks)).toEqual([]);
  });

  it("read a heading's anchor as GitHub makes it", () => {
    const anchors = anchorsOf('# G7 — top-level definitions kept\n## Finding\n```\n# not a heading\n```\n## Finding\n### `x.y` (risk)\n');
    expect([...anchors]).toEqual(['g7--top-level-definitions-kept', 'finding', 'finding-1', 'xy-risk']);
  });
});
