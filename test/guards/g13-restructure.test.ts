import { afterAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';

afterAll(() => removeTestRepos());

interface Out {
  findings: { category: string; severity: string; path?: string; message: string }[];
}

async function g13(base: Record<string, string>, head: Record<string, string | null>): Promise<Out['findings']> {
  const repo = prRepo(base, head);
  let out = '';
  await runCheck(
    { repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, noTests: true, only: ['G13'] },
    (s) => (out += s),
  );
  return (JSON.parse(out) as Out).findings;
}

const para = (topic: string) =>
  `The ${topic} step reads the project's settings, resolves every route the application declares, and writes the result where the server can load it at start. It runs once per deploy and never at request time, so its cost stays out of the hot path.`;
const wrap = (text: string, width: number) => text.replace(new RegExp(`(.{1,${width}})(?:\\s+|$)`, 'g'), '$1\n').trim();

const SECTIONS = ['Routing', 'Middleware', 'Templates', 'Static files'].map(
  (t, i) =>
    `## ${t}\n\n${wrap(para(t.toLowerCase()), 100)}\n\n\`\`\`python\napp.add_${t.toLowerCase().replace(' ', '_')}(name="s${i}", option=${i})\napp.run(debug=False, workers=${i + 2})\n\`\`\`\n`,
);
const GUIDE = `# Guide\n\nThis guide walks through the framework's main parts.\n\n${SECTIONS.join('\n')}`;
const INDEX = '# Guide\n\nThe guide now has one page per part: [basics](guide/basics.md) and [serving](guide/serving.md).\n';

const PROSE = ['Routing', 'Middleware', 'Templates', 'Static files'].map(
  (t) => `## ${t}\n\n${wrap(`${para(t.toLowerCase())} ${para(t)}`, 100)}\n`,
);

/**
 * Issue 31, item 5: a documentation restructure that moves a page's sections into new pages keeps
 * its content, so it is not `doc-destroyed`; a cut whose content went nowhere still is. Through the
 * real CLI (G13 only, tests off).
 */
describe('G13: a doc split into new pages', () => {
  it('docs/guide.md split into docs/guide/basics.md and docs/guide/serving.md with the same content: no finding', async () => {
    const found = await g13(
      { 'docs/guide.md': GUIDE },
      {
        'docs/guide.md': INDEX,
        'docs/guide/basics.md': `# Basics\n\n${SECTIONS.slice(0, 2).join('\n')}`,
        'docs/guide/serving.md': `# Serving\n\n${SECTIONS.slice(2).join('\n')}`,
      },
    );
    expect(found).toEqual([]);
  });

  it('prose re-wrapped and its headings one level up in the new pages still counts as moved', async () => {
    const moved = (s: string) =>
      s
        .replace(/^## /m, '# ')
        .replace(/\n(?!\n|#)/g, ' ')
        .replace(/(.{1,72})(?: |$)/g, '$1\n');
    const base = { 'docs/guide.md': `# Guide\n\n${PROSE.join('\n')}` };
    const head = {
      'docs/guide.md': INDEX,
      'docs/guide/basics.md': PROSE.slice(0, 2).map(moved).join('\n'),
      'docs/guide/serving.md': PROSE.slice(2).map(moved).join('\n'),
    };
    expect(await g13(base, head)).toEqual([]);
    // The same cut with new pages that hold other text is still a destroyed doc.
    const other = {
      'docs/guide.md': INDEX,
      'docs/guide/basics.md': '# Basics\n\nWork in progress.\n',
      'docs/guide/serving.md': '# Serving\n\nTBD.\n',
    };
    const cut = await g13(base, other);
    expect(cut.map((f) => [f.category, f.severity, f.path])).toEqual([['doc-destroyed', 'fail', 'docs/guide.md']]);
    expect(cut[0]!.message).toContain('shrank');
  });
});
