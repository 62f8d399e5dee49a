import { describe, expect, it } from 'vitest';
import { qaBlockMarkdown, qaSummaryLine } from '../../src/report/qa-section.js';

describe('report/qa-section', () => {
  it('writes one summary line per state and ignores shapes it does not know', () => {
    expect(qaSummaryLine({ status: 'ran', handled: 3, gap: 0, uncertain: 0 })).toBe('Q&A: 3 handled / 0 gap / 0 uncertain');
    const skipped = qaSummaryLine({ status: 'not-run', reason: 'disabled (qa.enabled is false)' });
    expect(skipped).toBe('Q&A: skipped (disabled (qa.enabled is false))');
    const crashed = qaSummaryLine({ status: 'crashed', reason: 'TypeError: x is undefined\nat y' });
    expect(crashed).toBe('Q&A: crashed (TypeError: x is undefined) — treat this PR as ungated');
    expect(qaSummaryLine(undefined)).toBeNull();
    expect(qaSummaryLine({ status: 'weird' })).toBeNull();
  });

  it('renders a crash loudly, a skip with its reason, a run with its answers, and nothing for an unknown shape', () => {
    const crashed = qaBlockMarkdown({ status: 'crashed', reason: 'TypeError: boom\nat x' });
    expect(crashed).toContain('### ⚠️ Q&A self-consistency phase CRASHED');
    expect(crashed).toContain('`TypeError: boom`');
    expect(crashed).toContain('**Treat this PR as ungated**');
    expect(qaBlockMarkdown({ status: 'not-run', reason: 'no model' }, 4)).toBe('#### Q&A self-consistency\n\nNot run: no model');
    expect(qaBlockMarkdown({ status: 'ran', markdown: '1 handled' })).toBe('### Q&A self-consistency\n\n1 handled');
    expect(qaBlockMarkdown({ status: 'weird' })).toBe('');
    expect(qaBlockMarkdown(undefined)).toBe('');
  });
});
