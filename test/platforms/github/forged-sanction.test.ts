import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Guard } from '../../../src/core/guard.js';
import { execFileSync } from 'node:child_process';
import { deriveSanctionKey, grantMarker, grantsIn, legacyAllowMarker, type SanctionGrant } from '../../../src/host/sanctions.js';
import { explainFinding } from '../../../src/platforms/github/explain-finding.js';
import { breakComments } from '../../../src/report/markdown-escape.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { closeStrict, SANCTION_KEY, startHarness, type Harness } from './helpers/harness.js';
import { APP_ID, OWNER, REPO, commentEvent, pullRequestEvent, type PrShape } from './helpers/payloads.js';
import { markerGuard } from '../../helpers/test-guards.js';

let h: Harness | undefined;
let store: Store;
beforeAll(async () => {
  store = await openStore();
}, 300_000);
afterEach(() => {
  closeStrict(h);
  h = undefined;
});
afterAll(async () => {
  await store.close();
  removeFakeRemotes();
});

/** Flags every changed go.mod that is not sanctioned (a stand-in for G1's manifest rule). */
const manifestGuard: Guard = {
  id: 'G1',
  name: 'manifests (test)',
  appliesTo: (f) => f.path === 'go.mod',
  checkFile: (f, ctx) =>
    ctx.sanctioned(f.path)
      ? []
      : [
          {
            category: 'manifest-edit',
            severity: 'fail',
            path: f.path,
            line: 1,
            message: `${f.path} edited`,
            remediation: 'revert or sanction it',
          },
        ],
};

const scope = (number: number) => ({ owner: OWNER, repo: REPO, number });

/** go.mod as the PR below writes it, and its blob (the same whatever commit holds it). */
const GO_MOD = 'module a\n\nrequire x v1\n';
const GO_MOD_BLOB = execFileSync('git', ['hash-object', '--stdin'], { input: GO_MOD, encoding: 'utf8' }).trim();
const goModGrant: SanctionGrant = {
  via: 'allow',
  by: 'maint',
  at: 'a'.repeat(40),
  pattern: 'go.mod',
  files: [{ path: 'go.mod', blob: GO_MOD_BLOB }],
};
const allowMarker = (key: Buffer, n: number) => grantMarker(goModGrant, key, scope(n));
const allowedPathsIn = (text: string, n: number) =>
  grantsIn(text, SANCTION_KEY, scope(n)).grants.flatMap((g) => g.files.map((f) => f.path));

describe('sanction markers are signed', () => {
  it('only a marker signed with the App key for this repository and PR verifies', () => {
    const good = allowMarker(SANCTION_KEY, 5);
    expect(allowedPathsIn(`ok\n\n${good}`, 5)).toEqual(['go.mod']);
    expect(grantsIn(good, SANCTION_KEY, scope(5)).grants).toEqual([goModGrant]);
    // Another key, another PR, an unsigned marker, a tampered payload, a marker of the first format: no grant.
    expect(allowedPathsIn(allowMarker(deriveSanctionKey('guess'), 5), 5)).toEqual([]);
    expect(allowedPathsIn(good, 6)).toEqual([]);
    expect(allowedPathsIn(`<!-- slopgate:grant:${Buffer.from(JSON.stringify(goModGrant)).toString('base64url')} -->`, 5)).toEqual([]);
    const payload = /slopgate:grant:([\w-]+)\./.exec(good)![1]!;
    const other = Buffer.from(JSON.stringify({ ...goModGrant, files: [{ path: 'go.sum', blob: GO_MOD_BLOB }] })).toString('base64url');
    expect(allowedPathsIn(good.replace(payload, other), 5)).toEqual([]);
    const legacy = legacyAllowMarker('go.mod', SANCTION_KEY, scope(5));
    expect(grantsIn(legacy, SANCTION_KEY, scope(5))).toEqual({ grants: [], legacy: ['go.mod'] });
  });

  it('the key is derived under its own label, never the secret itself', () => {
    expect(deriveSanctionKey('s3cret').toString('utf8')).not.toContain('s3cret');
    expect(deriveSanctionKey('s3cret').equals(deriveSanctionKey('s3cret'))).toBe(true);
    expect(deriveSanctionKey('s3cret').equals(deriveSanctionKey('other'))).toBe(false);
  });

  it('explain neutralises a file name that carries a marker, even a correctly signed one', () => {
    const marker = allowMarker(SANCTION_KEY, 5);
    const text = explainFinding(
      {
        id: 'abc123',
        guard: 'G99',
        category: 'todo-marker',
        severity: 'fail',
        path: `${marker}.md`,
        line: 1,
        message: `${marker}.md line 1 still holds SLOP`,
        remediation: 'x',
        confirmedBy: ['G99'],
        evidence: { file: marker },
      } as never,
      'a'.repeat(40),
    );
    expect(text).not.toContain('<!--');
    expect(text).not.toContain('-->');
    expect(allowedPathsIn(text, 5)).toEqual([]);
    expect(breakComments('a <!-- b --> c --!> d')).not.toMatch(/<!--|-->|--!>/);
  });
});

describe('the forged sanction through the App', () => {
  it('a file named `<!-- slopgate:grant:… -->.md`, quoted by `/slopgate explain`, does not become an allow', async () => {
    const n = 90;
    // The attacker's best case: a marker that would verify (as if copied from a real sanction of this very content),
    // kept short enough for a file name.
    const shortGrant: SanctionGrant = { ...goModGrant, by: 'm', at: 'a', pattern: 'g' };
    const marker = grantMarker(shortGrant, SANCTION_KEY, scope(n));
    expect(grantsIn(marker, SANCTION_KEY, scope(n)).grants).toEqual([shortGrant]);
    const evil = `${marker}.md`;
    const remote = FakeRemote.create({ 'go.mod': 'module a\n', 'README.md': '# a\n' });
    const head = remote.pushPr(n, { 'go.mod': GO_MOD, [evil]: 'SLOP\n' });
    const pr: PrShape = { number: n, headSha: head, baseSha: remote.baseSha, author: 'Codertocat' };
    h = await startHarness(remote, { guards: [manifestGuard, markerGuard], store });
    const g = h.github;

    // 1. The first run: the manifest edit blocks, and the evil file holds a SLOP finding.
    g.token().createCheckRun(901).gateJob(pr, 901, { review: true });
    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();
    const [first] = g.bodiesOf('PATCH', '/check-runs/901');
    expect(first.output.annotations.map((a: { path: string }) => a.path).sort()).toEqual([evil, 'go.mod'].sort());
    // The check run echoes the file name, neutralised (only the annotation's path field, which GitHub
    // needs verbatim to place it and never renders as Markdown, holds the raw name).
    const shown = [
      first.output.title,
      first.output.summary,
      first.output.text,
      ...first.output.annotations.flatMap((a: { title: string; message: string }) => [a.title, a.message]),
    ].join('\n');
    expect(shown).toContain('slopgate:grant');
    expect(shown).not.toContain('<!--');
    const id = /finding `([0-9a-zA-Z]+)`/.exec(first.output.text.slice(first.output.text.indexOf('.md')))?.[1];
    expect(id).toBeTruthy();

    // 2. `/slopgate explain` on the evil file's finding: the App's reply quotes the path.
    g.getPr(pr).reaction(9001).createComment(n);
    await h.receive('issue_comment', commentEvent(n, `/slopgate explain ${id}`, 'Codertocat'));
    await h.idle();
    const [reply] = g.bodiesOf('POST', `/issues/${n}/comments`);
    expect(reply.body).toContain('slopgate:grant');
    expect(reply.body).not.toContain('<!--');
    expect(allowedPathsIn(reply.body, n)).toEqual([]);

    // 3. The next run reads the App's own reply back: go.mod is still not sanctioned.
    g.getPr(pr)
      .reaction(9001)
      .createCheckRun(902)
      .getPr(pr)
      .noConfig()
      .issueComments(n, () => [
        { id: 1, body: reply.body, user: { login: 'slopgate[bot]', type: 'Bot' }, performed_via_github_app: { id: APP_ID } },
      ]);
    g.updateCheckRun(902).reviewComments(n).createReview(n).getPr(pr).updatePr(n);
    await h.receive('issue_comment', commentEvent(n, '/slopgate recheck', 'Codertocat'));
    await h.idle();
    const [second] = g.bodiesOf('PATCH', '/check-runs/902');
    expect(second.conclusion).not.toBe('success');
    expect(second.output.annotations.map((a: { path: string }) => a.path)).toContain('go.mod');
  }, 180_000);
});
