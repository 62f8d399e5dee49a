import { describe, expect, it } from 'vitest';
import { dismissTarget, parseDismissCommand } from '../../src/core/dismiss-command.js';
import { parseInlineMarker } from '../../src/core/inline-ignore.js';
import { makeFinding } from '../../src/core/finding.js';

describe('/slopgate dismiss', () => {
  it('parses the finding id and the rest of the line as the reason', () => {
    expect(parseDismissCommand('/slopgate dismiss 3F2A9C1B7D0E the old API is removed on purpose')).toEqual({
      ok: true,
      findingId: '3f2a9c1b7d0e',
      reason: 'the old API is removed on purpose',
    });
    const body = 'thanks!\n/slopgate dismiss `3f2a9c1b7d0e` ok\nmore text';
    expect(parseDismissCommand(body)).toEqual({ ok: true, findingId: '3f2a9c1b7d0e', reason: 'ok' });
  });

  it('requires a reason and a well-formed id', () => {
    const refused = (problem: RegExp) => ({ ok: false, problem: expect.stringMatching(problem) });
    expect(parseDismissCommand('/slopgate dismiss 3f2a9c1b7d0e')).toEqual(refused(/a reason is required/));
    expect(parseDismissCommand('/slopgate dismiss')).toEqual(refused(/finding id is missing/));
    expect(parseDismissCommand('/slopgate dismiss G7 because')).toEqual(refused(/`g7` is not a finding id/));
    expect(parseDismissCommand(`/slopgate dismiss 3f2a9c1b7d0e ${'x'.repeat(501)}`)).toMatchObject({ ok: false });
  });

  it('ignores quoted lines, code fences and other commands', () => {
    expect(parseDismissCommand('> /slopgate dismiss 3f2a9c1b7d0e quoted')).toBeUndefined();
    expect(parseDismissCommand('```\n/slopgate dismiss 3f2a9c1b7d0e fenced\n```')).toBeUndefined();
    expect(parseDismissCommand('/slopgate dismissal 3f2a9c1b7d0e x')).toBeUndefined();
    expect(parseDismissCommand('/slopgate recheck')).toBeUndefined();
  });

  it('finds the target finding and refuses the gate’s own failures', () => {
    const style = makeFinding({ guard: 'G2', category: 'style', severity: 'fail', path: 'a.ts', line: 1, message: 'm', remediation: 'r' });
    const crash = makeFinding({ guard: 'G2', category: 'guard-error', severity: 'fail', path: 'a.ts', message: 'm', remediation: 'rerun' });
    expect(dismissTarget([style, crash], style.id)).toEqual({ ok: true, finding: style });
    expect(dismissTarget([style, crash], crash.id)).toMatchObject({ ok: false, problem: expect.stringMatching(/cannot be dismissed/) });
    expect(dismissTarget([style], 'aaaaaaaaaaaa')).toMatchObject({ ok: false, problem: expect.stringMatching(/no finding/) });
  });
});

describe('inline slopgate-ignore markers', () => {
  it('need a comment opener, a known category and a reason', () => {
    const marker = parseInlineMarker('x = 1 # slopgate-ignore dead-link: moved later');
    expect(marker).toEqual({ ok: true, category: 'dead-link', reason: 'moved later' });
    expect(parseInlineMarker(' * slopgate-ignore style: in a block comment')).toMatchObject({ ok: true, reason: 'in a block comment' });
    expect(parseInlineMarker('const s = "slopgate-ignore style: not a comment";')).toBeUndefined();
    expect(parseInlineMarker('// slopgate-ignore')).toMatchObject({ ok: false });
    expect(parseInlineMarker('// slopgate-ignore nope: x')).toMatchObject({ ok: false, problem: expect.stringMatching(/'nope'/) });
  });
});
