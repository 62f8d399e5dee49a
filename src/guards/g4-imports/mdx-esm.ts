/**
 * The ESM of an MDX page (`import { Callout } from 'nextra/components'`, `export const meta = …`) as
 * JavaScript with every other line blanked, so that line numbers stay those of the page. MDX takes a
 * paragraph that starts with `import` or `export` at the start of a line as ESM, up to the next blank
 * line; fenced code blocks are prose.
 */
export const isMdx = (path: string): boolean => /\.mdx$/i.test(path);

export function mdxEsm(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let fence: string | null = null;
  let inEsm = false;
  for (const line of lines) {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (f?.startsWith(fence.charAt(0)) && f.length >= fence.length && line.trim() === f) fence = null;
      out.push('');
      continue;
    }
    if (f) {
      fence = f;
      inEsm = false;
      out.push('');
      continue;
    }
    if (line.trim() === '') inEsm = false;
    else if (!inEsm && /^(?:import|export)\b/.test(line)) inEsm = true;
    out.push(inEsm ? line : '');
  }
  return out.join('\n');
}
