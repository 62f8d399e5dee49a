import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/core/report.js';
import { HELP_TEXT, parseCommand } from '../../src/host/commands.js';
import { qaStateOf } from '../../src/host/publish-report.js';

describe('/slopgate dismiss parsing', () => {
  it('reads the id and the rest of the line as the reason', () => {
    expect(parseCommand('/slopgate dismiss 3F2A9C1B7D0E the old API is removed on purpose')).toEqual({
      name: 'dismiss',
      findingId: '3f2a9c1b7d0e',
      reason: 'the old API is removed on purpose',
    });
  });

  it('refuses a missing reason or a malformed id, saying how to write it', () => {
    expect(parseCommand('/slopgate dismiss 3f2a9c1b7d0e')).toMatchObject({
      name: 'unknown',
      problem: expect.stringContaining('reason is required'),
    });
    expect(parseCommand('/slopgate dismiss G7 because')).toMatchObject({
      name: 'unknown',
      problem: expect.stringContaining('is not a finding id'),
    });
  });

  it('is listed in the help', () => {
    expect(HELP_TEXT).toContain('`/slopgate dismiss <finding-id> <reason>`');
  });
});

describe('qaStateOf', () => {
  const report = (qa?: Report['sections']['qa']) => ({ sections: qa ? { qa } : {} }) as Report; // only sections are read
  it('maps each typed section to the PR body state', () => {
    expect(qaStateOf(report())).toEqual({ status: 'not-run', reason: 'the Q&A phase is not enabled for this repository' });
    expect(qaStateOf(report({ status: 'ran', markdown: 'md', handled: 3, gap: 0, uncertain: 0 }))).toEqual({
      status: 'ran',
      markdown: 'md',
    });
    expect(qaStateOf(report({ status: 'crashed', reason: 'LlmError: x', handled: 0, gap: 0, uncertain: 0 }))).toEqual({
      status: 'crashed',
      reason: 'LlmError: x',
    });
    expect(qaStateOf(report({ status: 'not-run', reason: 'no model', handled: 0, gap: 0, uncertain: 0 }))).toEqual({
      status: 'not-run',
      reason: 'no model',
    });
  });
});
