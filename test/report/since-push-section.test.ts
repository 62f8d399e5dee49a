import { describe, expect, it } from 'vitest';
import type { SincePushSection } from '../../src/core/report-sections.js';
import { renderCheckRun, renderMarkdown } from '../../src/report/markdown.js';
import { sincePushCounts } from '../../src/report/since-push-section.js';
import { renderText } from '../../src/report/text.js';
import { buildReport, f } from './build-report.js';

const PREV = '3333333cccccccccccccccccccccccccccccccccc';

function section(over: Partial<SincePushSection> = {}): SincePushSection {
  return {
    previous: { headSha: PREV, mergeBase: '1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
    history: 'descendant',
    mergeBaseMoved: false,
    lineMapping: 'diff',
    new: [],
    stillOpen: [],
    dismissed: [],
    fixed: [],
    ...over,
  };
}

describe('the since-push section in the reports', () => {
  const fresh = f({ path: 'src/new.py', line: 4, message: 'def run was removed' });
  const open = f({ path: 'src/app.py', line: 12 });
  const report = buildReport([fresh, open], {
    sections: {
      sincePush: section({
        new: [fresh.id],
        stillOpen: [{ id: open.id, was: ['0123456789ab'] }],
        fixed: [
          {
            id: 'aaaaaaaaaaaa',
            guard: 'G14',
            category: 'dead-link',
            severity: 'fail',
            path: 'README.md',
            line: 9,
            message: 'dead link',
            gone: 'fixed',
          },
        ],
      }),
    },
  });

  it('the check run summary names the previous head and counts fixed, new and still open; a fixed place is at the previous head', () => {
    const { summary } = renderCheckRun(report);
    expect(summary).toContain('Since `3333333` (the last gated push): 1 fixed · 1 new · 1 still open');
    expect(summary).toContain('### Since the last push (`3333333`)');
    expect(summary).toContain('- fail · G14 · `dead-link` · `README.md` line 9 at `3333333`: dead link');
    expect(summary).toContain('- fail · G7 · `toplevel-dropped` · `src/new.py` line 4: def run was removed');
    expect(summary).not.toContain('force-pushed');
    expect(renderMarkdown(report)).toContain('1 fixed · 1 new · 1 still open');
  });

  it('the text report says the same', () => {
    const text = renderText(report);
    expect(text).toContain('Since the last push (3333333): 1 fixed · 1 new · 1 still open');
    expect(text).toContain('  fixed: README.md line 9 at 3333333 · G14 dead-link: dead link');
    expect(text).toContain('  new: src/new.py line 4 · G7 toplevel-dropped: def run was removed');
  });

  it('a rewritten history, a moved merge-base and a lost previous head are said in words', () => {
    const s = section({
      history: 'rewritten',
      mergeBaseMoved: true,
      lineMapping: 'nearest',
      fixed: [{ id: 'b', guard: 'G1', category: 'manifest', severity: 'risk', path: 'vendor/x', message: 'm', gone: 'base' }],
      dismissed: ['c'],
    });
    expect(sincePushCounts(s)).toBe('0 fixed · 0 new · 0 still open · 1 gone with the new base · 1 dismissed');
    const { summary } = renderCheckRun(buildReport([], { sections: { sincePush: s } }));
    expect(summary).toContain('The branch was force-pushed or rebased since `3333333`.');
    expect(summary).toContain('compared against its new merge-base');
    expect(summary).toContain('matched by kind and nearest place');
    expect(summary).toContain('**Gone with the new base**');
  });

  it('a report without the section (the first gated head, or the CLI) shows none of it', () => {
    const plain = buildReport([open]);
    expect(renderCheckRun(plain).summary).not.toContain('Since');
    expect(renderText(plain)).not.toContain('Since the last push');
  });
});
