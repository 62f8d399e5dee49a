import { describe, expect, it } from 'vitest';
import { codeBlocksOf } from '../../src/core/fenced-blocks.js';
import { countLiteralNewlines } from '../../src/core/literal-newlines.js';
import { maskCodeSpans, maskComments } from '../../src/guards/shared/doc-masks.js';
import { frameworkClaims } from '../../src/guards/shared/framework-claims.js';
import { markdownAnchors } from '../../src/guards/g14-dead-links/heading-anchors.js';
import { extractLinks, trimUrl } from '../../src/guards/g14-dead-links/link-extract.js';
import type { ChangedFile } from '../../src/core/patch-set.js';
import { emptyFingerprint } from '../../src/repo/fingerprint-types.js';

/**
 * Hostile documents: each input is built so that a backtracking regex or a rescan per bracket would
 * take minutes (the original extractor spent over 150 s on the first one). The checks are about the
 * results; the generous per-test timeout is only a backstop that a quadratic scan blows by far.
 */
const TIMEOUT = 10_000;
const KB60 = 60 * 1024;

function addedDoc(path: string, text: string): ChangedFile {
  return {
    path,
    status: 'added',
    modeChanged: false,
    base: { oid: null, mode: null, size: 0, text: null, reason: 'absent' },
    head: { oid: 'x', mode: '100644', size: text.length, text },
    added: [{ start: 1, end: text.split('\n').length }],
    removed: [],
  };
}

describe('link and markdown extraction stay linear on hostile input', () => {
  it('a URL followed by 60 KB of `)` yields the URL without the parentheses', { timeout: TIMEOUT }, () => {
    const text = `See https://example.com/docs${')'.repeat(KB60)}\n`;
    const links = extractLinks('README.md', text, 'markdown');
    expect(links).toEqual([{ target: 'https://example.com/docs', line: 1, kind: 'url' }]);
    expect(trimUrl(`https://a.b/x_(y)${')'.repeat(KB60)}.`)).toBe('https://a.b/x_(y)');
  });

  it('60 KB of `](` and of nested brackets find no link', { timeout: TIMEOUT }, () => {
    expect(extractLinks('a.md', ']('.repeat(KB60 / 2), 'markdown')).toEqual([]);
    expect(extractLinks('a.md', `${'['.repeat(KB60)}x${']'.repeat(KB60)}`, 'markdown')).toEqual([]);
    expect(extractLinks('a.md', `[x](${'('.repeat(KB60)}`, 'markdown')).toEqual([]);
  });

  it('thousands of unfinished links and titles are read once each', { timeout: TIMEOUT }, () => {
    const chain = '[a]('.repeat(15_000);
    expect(extractLinks('a.md', chain, 'markdown')).toEqual([]);
    const titles = '[a](x ('.repeat(10_000);
    expect(extractLinks('a.md', titles, 'markdown')).toEqual([]);
    // a real link at the end is still found
    expect(extractLinks('a.md', `${titles}\n\n[ok](docs/ok.md)\n`, 'markdown').map((l) => l.target)).toEqual(['docs/ok.md']);
  });

  it('100k backticks, unclosed comments and unclosed tags mask nothing they should not', { timeout: TIMEOUT }, () => {
    const ticks = '`'.repeat(100_000);
    expect(maskCodeSpans(ticks)).toBe(ticks);
    const alternating = '`a``'.repeat(25_000);
    expect(maskCodeSpans(alternating).length).toBe(alternating.length);
    expect(extractLinks('a.md', `a${ticks}\n[x](y.md)\n`, 'markdown').map((l) => l.target)).toEqual(['y.md']);
    const comments = '<!--'.repeat(25_000);
    expect(maskComments(comments)).toBe(comments);
    expect(maskComments('a <!-- b --> c <!-- d')).toBe('a            c <!-- d');
    expect(extractLinks('a.md', '<a href="x" '.repeat(8000), 'markdown').length).toBeLessThanOrEqual(8000);
    expect(extractLinks('a.md', `<img ${' x'.repeat(KB60 / 2)}`, 'markdown')).toEqual([]);
  });

  it('code spans pair runs of equal length (CommonMark)', () => {
    expect(maskCodeSpans('a `` x ` y `` b')).toBe('a             b');
    expect(maskCodeSpans('a ` b')).toBe('a ` b');
    expect(maskCodeSpans('`x` and ```y```')).toBe('    and        ');
  });

  it('hostile headings: long runs of spaces, brackets, emphasis and custom ids', { timeout: TIMEOUT }, () => {
    expect(markdownAnchors('a.md', `# a${' '.repeat(KB60)}b\n`)).toEqual(new Set([`a${'-'.repeat(KB60)}b`]));
    expect(markdownAnchors('a.md', `# a {#${' '.repeat(KB60)}\n`).size).toBe(1);
    expect(markdownAnchors('a.md', `# ${'[a]('.repeat(15_000)}\n`).size).toBe(1);
    expect(markdownAnchors('a.md', `# ${'_a '.repeat(20_000)}\n`).size).toBe(1);
    expect(markdownAnchors('a.md', `# ${'<a '.repeat(20_000)}\n`).size).toBe(1);
    expect(markdownAnchors('a.md', '## Title ## {#custom}\n')).toEqual(new Set(['custom', 'title-']));
    expect(markdownAnchors('a.md', '## Install ##\n')).toEqual(new Set(['install']));
  });

  it('G11 prose on a line with thousands of mentions', { timeout: TIMEOUT }, () => {
    const fp = emptyFingerprint();
    expect(frameworkClaims(addedDoc('README.md', 'Built with React, '.repeat(10_000)), fp)).toHaveLength(10_000);
    expect(frameworkClaims(addedDoc('README.md', 'built with Next '.repeat(8000)), fp).length).toBeGreaterThan(0);
    expect(frameworkClaims(addedDoc('README.md', `${'A, '.repeat(20_000)}x Express`), fp)).toEqual([]);
    expect(frameworkClaims(addedDoc('README.md', '`'.repeat(100_000)), fp)).toEqual([]);
  });

  it('code blocks and written-out newlines on huge lines and blocks', { timeout: TIMEOUT }, () => {
    expect(countLiteralNewlines('a\\n"x"'.repeat(20_000)).outsideStrings).toBe(20_000);
    expect(codeBlocksOf('a.md', '`'.repeat(100_000))).toHaveLength(1);
    const rst = `Example::\n${'\n'.repeat(200_000)}  x\n${'  y\n'.repeat(200_000)}`;
    const blocks = codeBlocksOf('a.rst', rst);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.body).toHaveLength(200_001);
    expect(blocks[0]!.body[0]).toEqual({ line: 200_002, text: 'x' });
  });
});
