import { describe, expect, it } from 'vitest';
import { codeBlocksOf, codeChars, markdownFences, rstLiteralBlocks } from '../../src/core/fenced-blocks.js';
import { headLineForBaseLine } from '../../src/core/line-map.js';
import { countLiteralNewlines, expandLiteralNewlines } from '../../src/core/literal-newlines.js';

describe('code blocks of a doc', () => {
  it('reads ``` and ~~~ fences, info strings like c++, longer closing fences and indented fences', () => {
    const md = '```c++\nint x;\n````\n\n  ~~~ {.python}\n  print(1)\n  ```\n  still code\n  ~~~\n';
    const blocks = markdownFences(md);
    expect(blocks.map((b) => [b.openLine, b.closeLine, b.info])).toEqual([
      [1, 3, 'c++'],
      [5, 9, '{.python}'],
    ]);
    expect(blocks[1]!.body.map((l) => l.text.trim())).toEqual(['print(1)', '```', 'still code']);
  });

  it('an unclosed fence runs to the end; inline ```code``` is not a fence; an empty fence has no body', () => {
    expect(markdownFences('Use ```x``` inline.\n')).toEqual([]);
    expect(markdownFences('```\n```\n')[0]!.body).toEqual([]);
    expect(markdownFences('```sh\nls\nrm -rf build\n')[0]).toMatchObject({ closeLine: null, body: [{ line: 2 }, { line: 3 }] });
  });

  it('reads rST code directives (with options) and :: literal blocks, not other directives', () => {
    const rst =
      'Intro::\n\n    a = 1\n    b = 2\n\n.. note::\n\n   Not code.\n\n.. code-block:: bash\n   :linenos:\n\n   ls -la\n\nDone.\n';
    const blocks = rstLiteralBlocks(rst);
    expect(blocks.map((b) => [b.openLine, b.info, b.body.map((l) => l.text)])).toEqual([
      [1, '', ['a = 1', 'b = 2']],
      [10, 'bash', ['ls -la']],
    ]);
    expect(codeBlocksOf('x.rst', rst)).toHaveLength(2);
    expect(codeChars(blocks)).toBe('a = 1\nb = 2'.length + 'ls -la'.length);
  });
});

describe('written-out \\n', () => {
  it('counts only escapes outside quoted strings; an unmatched apostrophe opens no string', () => {
    expect(countLiteralNewlines('cargo build\\ncargo test\\n')).toMatchObject({ total: 2, outsideStrings: 2 });
    expect(countLiteralNewlines('printf "a\\nb\\n"')).toMatchObject({ total: 2, outsideStrings: 0 });
    expect(countLiteralNewlines("don't\\nstop\\n")).toMatchObject({ outsideStrings: 2 });
    expect(countLiteralNewlines('a\\\\nb').total).toBe(0);
  });

  it('expands them into real lines with the line indentation and no trailing empty line', () => {
    expect(expandLiteralNewlines('   a\\nb\\n')).toBe('   a\n   b');
    expect(expandLiteralNewlines('echo "x\\ny"')).toBe('echo "x\\ny"');
  });
});

describe('base line → head line', () => {
  // base: 1 2 3 4 5 6 ; the PR removes 3-4 and adds two lines after base line 5
  const removed = [{ start: 3, end: 4 }];
  const added = [{ start: 4, end: 5 }];
  it('maps unchanged lines through earlier edits and removed lines to where they were', () => {
    expect(headLineForBaseLine(2, removed, added, 6)).toBe(2);
    expect(headLineForBaseLine(5, removed, added, 6)).toBe(3);
    expect(headLineForBaseLine(6, removed, added, 6)).toBe(6);
    expect(headLineForBaseLine(3, removed, added, 6)).toBe(3);
    expect(headLineForBaseLine(4, [{ start: 4, end: 6 }], [{ start: 4, end: 4 }], 4)).toBe(4);
  });
});
