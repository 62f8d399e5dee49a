import { describe, expect, it } from 'vitest';
import { qaBlockMarkdown, qaSummaryLine } from '../../src/report/qa-section.js';

describe('report/qa-section', () => {
  it('writes one summary line per state and ignores shapes it does not know', () => {
    expect(qaSummaryLine({ status: 'ran', handled: 3, gap: 0, uncertain: 0 })).toBe('Q&A: 3 handled / 0 gap / 0 uncertain');
    const skipped = qaSummaryLine({ status: 'not-run', reason: 'disabled (qa.enabled is false)' });
    expect(skipped).toBe('Q&A: not run (disabled (qa.enabled is false))');
    const crashed = qaSummaryLine({ status: 'crashed', reason: 'TypeError: x is undefined\nat y' });
    expect(crashed).toBe('Q&A: crashed (TypeError: x is undefined) — treat this PR as ungated');
    expect(qaSummaryLine(undefined)).toBeNull();
    expect(qaSummaryLine({ status: 'weird' })).toBeNull();
  });

  it('cuts a long reason at a word, with an ellipsis, and keeps a reason that names an environment variable whole', () => {
    const words = 'the questioner answered with something that was not JSON at all, so nothing it said could be read '.repeat(3).trim();
    const line = qaSummaryLine({ status: 'not-run', reason: words })!;
    const shown = /^Q&A: not run \((.*)\)$/.exec(line)![1]!;
    expect(shown.length).toBeLessThanOrEqual(160);
    expect(shown.endsWith('…')).toBe(true);
    // Every word shown is a whole word of the reason.
    const kept = shown.replace(/…$/, '').trim().split(' ');
    expect(kept).toEqual(words.split(' ').slice(0, kept.length));

    // The real message of a questioner whose base URL (set as SLOPGATE_LLM_BASE_URL) is not a URL.
    const env =
      "the questioner model settings were refused: SLOPGATE_LLM_BASE_URL is not a valid URL: give the server's address with its " +
      'scheme, e.g. http://127.0.0.1:8080/v1 or https://api.example.com/v1';
    expect(env.length).toBeGreaterThan(160);
    expect(qaSummaryLine({ status: 'not-run', reason: env })).toBe(`Q&A: not run (${env})`);
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
