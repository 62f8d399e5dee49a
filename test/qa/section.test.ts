import { describe, expect, it } from 'vitest';
import { BODY_END, renderBodySection } from '../../src/host/pr-body.js';
import { crashReason, qaMarkdown, ranSection } from '../../src/qa/section.js';
import type { QaResult } from '../../src/qa/types.js';
import { LlmError } from '../../src/llm/port.js';

const hostile = 'see <!-- slopgate:end --> and ping @acme/owners, [click](http://evil.example) <img src=x>';

const result: QaResult = {
  questions: [
    { slot: 'evidence', question: hostile },
    { slot: 'edge', question: 'What about an empty string?' },
    { slot: 'scope', question: 'Why reformat the imports?' },
  ],
  answers: [
    { slot: 'evidence', verdict: 'gap', evidence: 'a.ts:1`', rationale: hostile, flipped: 'a.ts:1 is not a line this PR adds or changes' },
    { slot: 'edge', verdict: 'handled', evidence: 'a.ts:3', rationale: 'guarded on line 3' },
    { slot: 'scope', verdict: 'uncertain', evidence: null, rationale: 'unclear' },
  ],
  roundTrip: true,
  revisedPatch: [],
  models: { questioner: 'q', defender: 'd' },
};

describe('qa/section', () => {
  it('escapes model text so it cannot close the PR-body section, link, embed HTML or mention anyone', () => {
    const md = qaMarkdown(result);
    expect(md).not.toContain('<!-- slopgate:end -->');
    expect(md).not.toContain('@acme');
    expect(md).not.toContain('[click]');
    expect(md).toContain('\\[click\\]');
    expect(md).not.toMatch(/(^|[^\\])<img/);
    expect(md).toContain('1 handled · 1 gap · 1 uncertain');
    const body = renderBodySection({
      decision: { outcome: 'ADVISE', reason: 'r', blocking: 0, advisory: 1, round: 1, maxRounds: 3 },
      headSha: 'abcdef1234567',
      qa: { status: 'ran', markdown: md },
    });
    expect(body.indexOf(BODY_END)).toBe(body.length - BODY_END.length);
    expect(ranSection(result)).toMatchObject({ status: 'ran', handled: 1, gap: 1, uncertain: 1 });
  });

  it('names the error type, the model error kind and only the first line', () => {
    const http = new LlmError('http', 'HTTP 502 from the model server\nbody…', 502);
    expect(crashReason(http)).toBe('LlmError (http): HTTP 502 from the model server');
    expect(crashReason(new TypeError('\n  cannot read x\n  at f'))).toBe('TypeError: cannot read x');
    expect(crashReason('plain string')).toBe('string: plain string');
  });
});
