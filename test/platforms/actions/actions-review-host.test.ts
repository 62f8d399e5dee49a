import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PullRequestFacts } from '../../../src/host/review-host.js';
import { reportOutcome } from '../../../src/host/check-run-outcomes.js';
import { suiteBrokenReport } from '../../report/build-report.js';
import type { CheckAnnotation } from '../../../src/report/annotations.js';
import {
  actionCapabilities,
  actionOctokit,
  ActionsReviewHost,
  ANNOTATIONS_PER_LEVEL,
} from '../../../src/platforms/actions/actions-review-host.js';

const dir = mkdtempSync(join(tmpdir(), 'slopgate-actions-host-'));
const API = 'https://ghe.example.test/api/v3';

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  expect(nock.isDone()).toBe(true);
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
  rmSync(dir, { recursive: true, force: true });
});

const FACTS: PullRequestFacts = {
  number: 1,
  state: 'open',
  draft: false,
  author: 'someone',
  title: 't',
  body: null,
  headSha: 'a'.repeat(40),
  headRef: 'pr',
  headRepoFullName: 'someone/calc',
  baseRef: 'main',
  baseSha: 'b'.repeat(40),
  defaultBranch: 'main',
  labels: [],
  mergeable: true,
  isFork: true,
  maintainerCanModify: false,
  htmlUrl: 'https://ghe.example.test/acme/calc/pull/1',
  repoHtmlUrl: 'https://ghe.example.test/acme/calc',
};

function annotation(level: CheckAnnotation['annotation_level'], i: number): CheckAnnotation {
  return { path: `f${i}.py`, start_line: i + 1, end_line: i + 1, annotation_level: level, title: `t${i}`, message: `m${i}` };
}

function host(fromFork: boolean) {
  const lines: string[] = [];
  const summaryFile = join(dir, `summary-${Math.random().toString(36).slice(2)}.md`);
  writeFileSync(summaryFile, 'earlier step\n');
  const h = new ActionsReviewHost(
    actionOctokit('ghs_test', API),
    { owner: 'acme', repo: 'calc' },
    'ghs_test',
    { summaryFile, runUrl: 'https://ghe.example.test/acme/calc/actions/runs/1', write: (l) => lines.push(l) },
    actionCapabilities(fromFork),
  );
  return { h, lines, summaryFile };
}

describe('ActionsReviewHost', () => {
  it('a read-only host logs the verdict: at most 10 annotations of each level, a count of the rest, the job summary appended', async () => {
    const { h, lines, summaryFile } = host(true);
    for (const c of [h.reviews, h.conversation, h.buttons, h.minimise, h.prBody, h.labels, h.push]) expect(c).toBeUndefined();
    expect(await h.startCheckRun('a'.repeat(40), 'slopgate:pr:1')).toBe(ActionsReviewHost.NO_CHECK_RUN);
    const annotations = [
      ...Array.from({ length: 12 }, (_, i) => annotation('failure', i)),
      ...Array.from({ length: 3 }, (_, i) => annotation('notice', i)),
    ];
    await h.completeCheckRun(0, { conclusion: 'failure', title: 'REFINE: 12 blocking', summary: 'the summary <!-- x -->', annotations });
    expect(lines.filter((l) => l.startsWith('::error file='))).toHaveLength(ANNOTATIONS_PER_LEVEL);
    expect(lines.filter((l) => l.startsWith('::notice file='))).toHaveLength(3);
    expect(lines).toContain(
      '::notice title=slopgate::2 more findings are not annotated here (GitHub shows 10 of each level per step); ' +
        'the job summary lists them all',
    );
    expect(lines.at(-1)).toBe('::error title=slopgate::REFINE: 12 blocking');
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary.startsWith('earlier step\n## slopgate: REFINE: 12 blocking\n')).toBe(true);
    expect(summary).not.toContain('<!-- x -->');
    expect(h.checkRunUrl(FACTS, 0)).toBe('https://ghe.example.test/acme/calc/actions/runs/1');
  });

  it('the job summary and the log say the suite does not start at the head, with the cause, never "no regressions"', async () => {
    const { h, lines, summaryFile } = host(true);
    const cause = '`conftest.py` imports `sqlalchemy`, which is not installed in the sandbox';
    await h.completeCheckRun(0, reportOutcome(suiteBrokenReport(`${cause}; declare it in the project’s test dependencies`), false));
    const title = `1 blocking · suite does not start at the head: ${cause}`;
    expect(lines.at(-1)).toBe(`::error title=slopgate::${title}`);
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary).toContain(`## slopgate: ${title}\n`);
    expect(summary).toContain(`### Tests: suite does not start at the head: ${cause}\n`);
    expect(summary).not.toContain('no regressions');
  });

  it('a 403 on creating the check run switches to annotations with a warning; other errors are thrown', async () => {
    const { h, lines } = host(false);
    nock(API).post('/repos/acme/calc/check-runs').reply(403, { message: 'Resource not accessible by integration' });
    expect(await h.startCheckRun('b'.repeat(40), 'slopgate:pr:2')).toBe(ActionsReviewHost.NO_CHECK_RUN);
    // Comments, body and labels stay: only the check run falls back to annotations.
    expect(h.reviews).toBe(h);
    expect(h.labels).toBe(h);
    expect(h.push).toBeUndefined();
    expect(lines[0]).toMatch(/^::warning title=slopgate%3A no check run::.*checks: write/);

    const other = host(false);
    nock(API).post('/repos/acme/calc/check-runs').reply(422, { message: 'Validation Failed' });
    await expect(other.h.startCheckRun('c'.repeat(40), 'slopgate:pr:3')).rejects.toMatchObject({ status: 422 });
  });

  it('a writing host sends the check run to GITHUB_API_URL with the token and still writes the job summary', async () => {
    const { h, lines, summaryFile } = host(false);
    nock(API, { reqheaders: { authorization: 'token ghs_test' } })
      .post('/repos/acme/calc/check-runs')
      .reply(201, { id: 77 });
    nock(API)
      .patch(
        '/repos/acme/calc/check-runs/77',
        (b: { conclusion?: string; output?: { annotations?: unknown[] } }) =>
          b.conclusion === 'success' && b.output?.annotations === undefined,
      )
      .reply(200, { id: 77 });
    const id = await h.startCheckRun('d'.repeat(40), 'slopgate:pr:4');
    expect(id).toBe(77);
    await h.completeCheckRun(id, { conclusion: 'success', title: 'PASS', summary: 'clean' });
    expect(lines).toEqual([]);
    expect(readFileSync(summaryFile, 'utf8')).toContain('## slopgate: PASS');
    expect(await h.cloneCredentials()).toEqual({ username: 'x-access-token', token: 'ghs_test' });
  });
});
