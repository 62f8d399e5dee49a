import { describe, expect, it } from 'vitest';
import { makeFinding, type Finding } from '../../src/core/finding.js';
import { findingIdOf, planReview, type PostedComment } from '../../src/host/review-plan.js';

const f = (path: string, line: number, extra: Partial<Finding> = {}): Finding =>
  makeFinding({
    guard: 'G2',
    category: 'syntax-invalid',
    severity: 'fail',
    path,
    line,
    message: `broken at ${line}`,
    remediation: `fix line ${line}`,
    ...extra,
  });

const added = new Map([['src/a.ts', [{ start: 10, end: 14 }]]]);
const opts = { budget: 25, suggestions: true };

describe('github/review-plan', () => {
  it('comments only on added lines; a context line or another file goes to the check run', () => {
    const plan = planReview(
      [
        f('src/a.ts', 12),
        f('src/a.ts', 9),
        f('src/b.ts', 1),
        makeFinding({ guard: 'G8', category: 'test-regression', severity: 'fail', message: 'm', remediation: 'r' }),
      ],
      added,
      [],
      opts,
    );
    expect(plan.comments.map((c) => c.line)).toEqual([12]);
    expect(plan.offDiff).toHaveLength(3);
  });

  it('a multi-line finding becomes a range only when the whole range was added', () => {
    const plan = planReview([f('src/a.ts', 11, { endLine: 13 }), f('src/a.ts', 13, { endLine: 20 })], added, [], opts);
    expect(plan.comments[0]).toMatchObject({ start_line: 11, start_side: 'RIGHT', line: 13, side: 'RIGHT' });
    expect(plan.comments[1]).toMatchObject({ line: 13 });
    expect(plan.comments[1]!.start_line).toBeUndefined();
  });

  it('sits on the lines a suggestion replaces, with a fence longer than any backticks inside', () => {
    const finding = f('src/a.ts', 10, {
      suggestion: { path: 'src/a.ts', startLine: 11, endLine: 12, replacement: 'const s = ```;\nok();\n' },
    });
    const [c] = planReview([finding], added, [], opts).comments;
    expect(c).toMatchObject({ start_line: 11, line: 12 });
    expect(c!.body).toContain('````suggestion\nconst s = ```;\nok();\n````');
  });

  it('drops the suggestion block when suggestions are off or the fix lies off the diff', () => {
    const finding = f('src/a.ts', 10, { suggestion: { path: 'src/a.ts', startLine: 3, endLine: 4, replacement: 'x' } });
    const [c] = planReview([finding], added, [], opts).comments;
    expect(c).toMatchObject({ line: 10 });
    expect(c!.body).not.toContain('suggestion');
  });

  it('skips findings already commented on the same path (re-run, force-push), even when GitHub marked the comment outdated', () => {
    const a = f('src/a.ts', 10);
    const posted: PostedComment[] = [{ id: 1, nodeId: 'N1', findingId: a.id, path: 'src/a.ts', line: null, humanReplied: false }];
    const plan = planReview([a, f('src/a.ts', 11)], added, posted, opts);
    expect(plan.alreadyPosted).toEqual([a]);
    expect(plan.comments.map((c) => findingIdOf(c.body))).toEqual([f('src/a.ts', 11).id]);
  });

  it('stale comments of fixed findings are cleaned up unless a human replied', () => {
    const posted: PostedComment[] = [
      { id: 1, nodeId: 'N1', findingId: 'gone1', path: 'src/a.ts', line: 10, humanReplied: false },
      { id: 2, nodeId: 'N2', findingId: 'gone2', path: 'src/a.ts', line: 11, humanReplied: true },
    ];
    expect(planReview([], added, posted, opts).stale.map((s) => s.id)).toEqual([1]);
  });

  it('stops at the comment budget; the rest stay in the check run', () => {
    const many = [10, 11, 12, 13, 14].map((l) => f('src/a.ts', l));
    const plan = planReview(many, added, [], { budget: 2, suggestions: true });
    expect(plan.comments).toHaveLength(2);
    expect(plan.overBudget).toHaveLength(3);
  });
});
