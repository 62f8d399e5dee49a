import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FakeRemote, removeFakeRemotes } from '../../helpers/fake-remote.js';
import { closeStrict, startHarness, type Harness } from './helpers/harness.js';
import { INSTALLATION_ID, OWNER, REPO, example, pullRequestEvent, type Json, type PrShape } from './helpers/payloads.js';
import { markerGuard } from '../../helpers/test-guards.js';

let h: Harness | undefined;
afterEach(() => {
  closeStrict(h);
  h = undefined;
});
afterAll(() => removeFakeRemotes());

/** installation.created / deleted from the real examples, for the given repositories. */
function installationEvent(action: 'created' | 'deleted', fullNames: string[]): Json {
  const payload = example('installation', (e) => e.action === action);
  payload.installation.id = INSTALLATION_ID;
  payload.repositories = fullNames.map((full, i) => ({
    id: 5000 + i,
    node_id: `R_${i}`,
    name: full.split('/')[1],
    full_name: full,
    private: false,
  }));
  return payload;
}

describe('installation events', () => {
  it("uninstalling removes the mirrors of the installation's repositories and keeps the others; installing removes nothing", async () => {
    const remote = FakeRemote.create({ 'a.txt': 'one\n' });
    const head = remote.pushPr(95, { 'a.txt': 'two\n' });
    const pr: PrShape = { number: 95, headSha: head, baseSha: remote.baseSha };
    h = await startHarness(remote, { guards: [markerGuard] });
    h.github.token().createCheckRun(951).gateJob(pr, 951);
    await h.receive('pull_request', pullRequestEvent('opened', pr));
    await h.idle();
    const mirror = join(h.workDir, 'mirrors', OWNER, `${REPO}.git`);
    expect(existsSync(join(mirror, 'HEAD')), 'the gate job cloned the mirror').toBe(true);
    // The mirror of a repository another installation still covers.
    const other = join(h.workDir, 'mirrors', 'octo-org', 'Other.git');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'HEAD'), 'ref: refs/heads/main\n');

    await h.receive('installation', installationEvent('created', [`${OWNER}/${REPO}`]));
    await h.idle();
    expect(existsSync(mirror)).toBe(true);

    await h.receive('installation', installationEvent('deleted', [`${OWNER}/${REPO}`]));
    await h.idle();
    expect(existsSync(mirror)).toBe(false);
    expect(existsSync(join(other, 'HEAD'))).toBe(true);
    // One check run from the gate job; the installation events made no request.
    expect(h.github.captured.filter((c) => c.method === 'POST')).toHaveLength(1);
  });
});
