import { afterAll, describe, expect, it } from 'vitest';
import type { PriorDismissal } from '../../src/core/apply-dismissals.js';
import type { Finding } from '../../src/core/finding.js';
import { g1 } from '../../src/guards/g1-manifest-safety/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { removeTestRepos, TestRepo } from '../helpers/git-repo.js';

/**
 * Issue 19, item 4: a `/slopgate dismiss` covers the finding's content, not just its place. The id of a
 * symlink finding names the link's target, and the id of any G1 finding names the file's content, so a
 * dismissal given for one version does not carry to a later push that changes what was approved.
 */
afterAll(() => removeTestRepos());

const AT = '2026-11-20T10:00:00.000Z';
const dismissalOf = (f: Finding): PriorDismissal => ({
  fingerprint: f.id,
  by: 'maint',
  at: AT,
  reason: 'looked at it',
  source: 'command',
  category: f.category,
  ...(f.path ? { path: f.path } : {}),
});

async function g1Of(repo: TestRepo, prior: PriorDismissal[] = []): Promise<Finding[]> {
  return findingsOf(await gate(repo, [g1], { dismissals: { prior } }), 'G1');
}

describe('dismissals are bound to what they approved', () => {
  it('a symlink finding names its target: the dismissal of a link to a harmless file does not cover /proc/self/environ', async () => {
    const repo = TestRepo.create();
    repo.write({ 'README.md': 'x\n' }).commit('base');
    repo.branch('pr');
    repo.symlink('config/hostname', '/etc/hostname').commit('link');
    const [harmless] = await g1Of(repo);
    expect(harmless!.cause).toBe('symlink to /etc/hostname');
    const prior = [dismissalOf(harmless!)];
    expect((await g1Of(repo, prior))[0]!.dismissed).toMatchObject({ by: 'maint' });

    repo.write({ 'config/hostname': null });
    repo.symlink('config/hostname', '/proc/self/environ').commit('retarget');
    const [leak] = await g1Of(repo, prior);
    expect(leak!.path).toBe('config/hostname');
    expect(leak!.id).not.toBe(harmless!.id);
    expect(leak!.message).toContain('/proc/self/environ');
    expect(leak!.dismissed).toBeUndefined();
  });

  it('a dismissed CODEOWNERS edit comes back when a later push rewrites the file, even on the same line', async () => {
    const repo = TestRepo.create();
    repo.write({ '.github/CODEOWNERS': '* @acme/core\n' }).commit('base');
    repo.branch('pr');
    repo.write({ '.github/CODEOWNERS': '* @acme/core @acme/docs\n' }).commit('add docs team');
    const [first] = await g1Of(repo);
    expect(first!.category).toBe('sensitive-path');
    const prior = [dismissalOf(first!)];
    expect((await g1Of(repo, prior))[0]!.dismissed).toBeDefined();

    // An unrelated push keeps the file as it was: the dismissal still holds.
    repo.write({ 'notes.txt': 'n\n' }).commit('unrelated');
    expect((await g1Of(repo, prior))[0]!.dismissed).toBeDefined();

    repo.write({ '.github/CODEOWNERS': '* @mallory\n' }).commit('hand over');
    const [after] = await g1Of(repo, prior);
    expect(after!.line).toBe(first!.line);
    expect(after!.id).not.toBe(first!.id);
    expect(after!.dismissed).toBeUndefined();
    expect(after!.message).toContain(`The dismissal of \`${first!.id}\` by maint on 2026-11-20 lapsed: the finding changed since.`);
  });
});
