import { describe, expect, it } from 'vitest';
import { BODY_END, BODY_START, renderBodySection, renderQaBlock, spliceBodySection } from '../../src/host/pr-body.js';

const section = (tag: string) => `${BODY_START}\n${tag}\n${BODY_END}`;

describe('github/pr-body: spliceBodySection', () => {
  it('appends the section when the markers are missing, keeping the author text byte for byte', () => {
    const author = 'Fixes #12.\n\n- [ ] tested   \n';
    const out = spliceBodySection(author, section('v1'));
    expect(out.startsWith('Fixes #12.\n\n- [ ] tested')).toBe(true);
    expect(out).toContain(section('v1'));
  });

  it('replaces the section on the next run instead of appending a second one', () => {
    const once = spliceBodySection('intro\n\nouttro', section('v1'));
    const twice = spliceBodySection(once, section('v2'));
    expect(twice.split(BODY_START)).toHaveLength(2);
    expect(twice).toContain('v2');
    expect(twice).not.toContain('v1');
    expect(twice.startsWith('intro\n\nouttro')).toBe(true);
  });

  it('collapses duplicated sections (e.g. a copied description) into one, keeping text between them', () => {
    const body = `top\n${section('old-a')}\nmiddle by the author\n${section('old-b')}\nbottom`;
    const out = spliceBodySection(body, section('new'));
    expect(out.split(BODY_START)).toHaveLength(2);
    expect(out).toBe(`top\n${section('new')}\nmiddle by the author\n\nbottom`);
  });

  it('a stray start marker (the author deleted the end) loses only the marker, never the text after it', () => {
    const body = `keep this\n${BODY_START}\nand this too`;
    const out = spliceBodySection(body, section('new'));
    expect(out).toContain('keep this');
    expect(out).toContain('and this too');
    expect(out.split(BODY_START)).toHaveLength(2);
  });

  it('handles an empty or null body', () => {
    expect(spliceBodySection(null, section('x'))).toBe(`${section('x')}\n`);
  });
});

describe('github/pr-body: Q&A block', () => {
  it('renders the CRASHED block with the first line of the reason and the ungated warning', () => {
    const block = renderQaBlock({ status: 'crashed', reason: '\nmodel returned invalid JSON three times\n  at parse (x.ts:1)' });
    expect(block).toContain('Q&A self-consistency phase CRASHED');
    expect(block).toContain('model returned invalid JSON three times');
    expect(block).not.toContain('at parse');
    expect(block).toContain('Treat this PR as ungated');
  });

  it('renders the not-run state with its reason inside the section', () => {
    const s = renderBodySection({
      decision: { outcome: 'PASS', reason: 'every guard passed', blocking: 0, advisory: 0, round: 1, maxRounds: 3 },
      headSha: 'abcdef1234567',
      qa: { status: 'not-run', reason: 'the Q&A phase is not enabled for this repository' },
    });
    expect(s.startsWith(BODY_START)).toBe(true);
    expect(s.endsWith(BODY_END)).toBe(true);
    expect(s).toContain('`abcdef1`');
    expect(s).toContain('Not run: the Q\\&A phase is not enabled'); // escaped like any reason
  });
});
