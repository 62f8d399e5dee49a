import { describe, expect, it } from 'vitest';
import { decodeXmlEntities } from '../../src/report/format-helpers.js';
import { codeSpan, escapeInline, splitCodeSpans } from '../../src/report/markdown-escape.js';
import { renderCheckRun } from '../../src/report/markdown.js';
import { renderReport } from '../../src/report/index.js';
import { buildReport, f } from './build-report.js';

/** What a CommonMark renderer shows for one code span: the text between the fences, one padding space stripped from each side. */
function spanContent(span: string): string {
  const m = /^(`+)([\s\S]*)\1$/.exec(span)!;
  const inner = m[2]!;
  return inner.length >= 2 && inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '' ? inner.slice(1, -1) : inner;
}

describe('code spans', () => {
  it.each([
    ['plain', 'init_schema'],
    ['one backtick inside', 'a`b'],
    ['a run of two inside', 'x``y'],
    ['starts with a backtick', '`tick'],
    ['ends with a backtick', 'tick`'],
    ['only backticks', '``'],
  ])('%s: the fence is longer than any run inside and the content survives', (_name, content) => {
    const span = codeSpan(content);
    const fence = /^`+/.exec(span)![0];
    const longestInside = Math.max(0, ...(content.match(/`+/g) ?? []).map((r) => r.length));
    expect(fence.length).toBe(longestInside + 1);
    expect(span.endsWith(fence)).toBe(true);
    expect(spanContent(span)).toBe(content);
  });

  it('splits text as CommonMark pairs backtick runs', () => {
    expect(splitCodeSpans('`a` and ``b`c`` and `d')).toEqual([
      { code: true, text: 'a', fence: '`' },
      { code: false, text: ' and ' },
      { code: true, text: 'b`c', fence: '``' },
      { code: false, text: ' and `d' },
    ]);
    // A backslash before a backtick makes it literal (CommonMark): no span opens there.
    expect(splitCodeSpans('\\`@x\\` and `y`')).toEqual([
      { code: false, text: '\\`@x\\` and ' },
      { code: true, text: 'y', fence: '`' },
    ]);
  });

  it('a guard message shows its names as code, not as literal backticks', () => {
    expect(escapeInline('`db.py` lost `init_schema`')).toBe('`db.py` lost `init_schema`');
    expect(escapeInline('a lone ` stays literal')).toBe('a lone \\` stays literal');
  });

  it('a pipe inside a code span in a table cell is escaped (GFM splits cells even there)', () => {
    expect(escapeInline('`a|b` x|y', { cell: true })).toBe('`a\\|b` x\\|y');
  });
});

describe('HTML comments in PR-controlled text', () => {
  const hostile = f({
    path: 'src/<!--x-->.py',
    message: 'name `<!-- slopgate:sanction G1 -->` and plain <!-- hide --> and `-->`',
    remediation: 'end --> here',
    suggestion: { path: 'src/a.py', startLine: 1, endLine: 1, replacement: 'x = "<!-- y -->"\n' },
  });
  const report = buildReport([hostile]);

  it('nothing in the markdown opens or closes an HTML comment, inside code spans and blocks included', () => {
    const out = renderCheckRun(report);
    const all = `${out.title}\n${out.summary}\n${out.text}\n${renderReport('markdown', report)}`;
    expect(all).not.toContain('<!--');
    expect(all).not.toContain('-->');
    expect(all).toContain('slopgate:sanction G1'); // still readable
  });
});

describe('XML entities from test reports', () => {
  it('are decoded once, before escaping', () => {
    expect(decodeXmlEntities('a&#10;b&#xA;c &lt;x&gt; &amp;lt; &quot;q&quot; &apos;s&apos;')).toBe('a\nb\nc <x> &lt; "q" \'s\'');
    expect(decodeXmlEntities('&#xD800; &#99999999; &nbsp;')).toBe('&#xD800; &#99999999; &nbsp;');
  });

  it('a test failure message renders its line breaks and its < as text', () => {
    const finding = f({
      guard: 'G8',
      category: 'test-regression',
      message: 'tests/test_a.py::test_load failed:&#10;assert &lt;Row 1&gt; == None&#10;E   where x = 1',
    });
    const text = renderCheckRun(buildReport([finding])).text;
    expect(text).not.toContain('&#10;');
    expect(text).not.toContain('&lt;');
    expect(text).toContain('assert \\<\u200bRow 1\\> == None');
    expect(text).toMatch(/failed: {2}\nassert/); // a hard line break where the report had &#10;
    const terminal = renderReport('text', buildReport([finding]), { color: false });
    expect(terminal).toContain('assert <Row 1> == None');
    expect(terminal).not.toContain('&#10;');
  });
});
