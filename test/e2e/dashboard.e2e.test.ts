import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { prRepo, removeTestRepos, type TestRepo } from '../helpers/git-repo.js';
import { parsePrometheusText } from '../helpers/prometheus-text.js';
import { needs } from '../helpers/toolchains.js';
import type { PullState, RepoState } from './harness/github-state.js';
import { E2eEnv } from './harness/e2e-env.js';
import { openPull, publishRepo } from './harness/pull-fixtures.js';
import { pullRequestPayload } from './harness/webhooks.js';

/**
 * Issue 33 end to end: the built App on loopback with its store filled by real gates of throwaway
 * repositories, the dashboard driven in Debian's headless Chromium (playwright-core), and /metrics
 * scraped and parsed. One App and one browser serve every case, in order.
 *
 * The gates: acme/docs #1 (strict, maxRounds 1) adds two dead links, one dismissed inline → STUCK;
 * acme/calc #1 and #2 each flip `test_clock` (fails once, passes on re-run) → PASS with a nit, and the
 * test is then known flaky; acme/calc #3 breaks `add` with an assertion message holding HTML and an
 * @mention → a blocking regression.
 */
const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'operator-token-for-the-e2e-test';
const SHOTS = process.env.SLOPGATE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'slopgate-dashboard-shots-'));

let env: E2eEnv;
let browser: Browser;

beforeAll(async () => {
  env = await E2eEnv.start({ env: { SLOPGATE_DASHBOARD_TOKEN: TOKEN } });
  // Root (CI) cannot use Chromium's own sandbox; the page is ours and loads nothing from elsewhere.
  if (existsSync(CHROMIUM)) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 600_000);

afterEach(() => {
  expect(env.gh.violations).toEqual([]);
});

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
  await browser?.close();
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
  await env?.stop();
  removeTestRepos();
  if (!process.env.SLOPGATE_SCREENSHOTS) rmSync(SHOTS, { recursive: true, force: true });
});

async function gated(repo: RepoState, src: TestRepo, headRef: string, title: string): Promise<PullState> {
  const pull = openPull(env.gh, { repo, sourceDir: src.dir, headRef, title });
  const ack = await env.deliver('pull_request', pullRequestPayload(env.gh.state, pull, 'opened', { installationId: env.installationId }));
  expect(ack.status).toBe(200);
  await env.completedRun(pull, 240_000);
  await env.idle(120_000);
  return pull;
}

const DOCS = '# guide\n\nHow to use the tool.\n\n## Links\n\n';
const CALC_BASE = {
  'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
  'calc/__init__.py': '',
  'calc/ops.py': 'def add(a, b):\n    return a + b\n',
  'tests/__init__.py': '',
  'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
  'tests/test_clock.py': 'def test_clock():\n    assert True\n',
  // The type probe and the project's own checks take most of a gate here and this test is not about them.
  '.github/slopgate.yml': 'guards:\n  disable: [G16, G17]\n',
};
const FLIPS = `import os


def test_clock():
    marker = os.path.join(os.getcwd(), ".clock-marker")
    if not os.path.exists(marker):
        open(marker, "w").close()
        assert False, "clock skew"
`;
const HOSTILE = '<img src=x onerror=alert(1)> cc @octocat';
const CLOCK = 'py:tests/test_clock.py::test_clock';
/** The page's window inside `evaluate` (the tests compile without the DOM library; the cast is erased). */
interface PageWindow {
  getComputedStyle(el: unknown): { backgroundColor: string };
}

async function signIn(page: Page): Promise<void> {
  await page.goto(`${env.app.url}/dashboard/login`);
  await page.fill('input[name=token]', TOKEN);
  await Promise.all([page.waitForURL(`${env.app.url}/dashboard`), page.click('button[type=submit]')]);
}

needs('pytest', 'chromium')('the operator dashboard and /metrics, end to end', () => {
  let stuck: PullState;
  let regression: PullState;

  it('gates throwaway repositories through the App: a STUCK PR, two flips of one test, a regression with hostile text', async () => {
    const docs = prRepo(
      { 'README.md': DOCS, '.github/slopgate.yml': 'strict: true\nmaxRounds: 1\n' },
      {
        'README.md': `${DOCS}- see [setup](docs/setup.md)\n- see [old](docs/old.md) <!-- slopgate-ignore dead-link: the page lands next week -->\n`,
      },
    );
    const docsRepo = publishRepo(env.gh, 'acme', 'docs', docs.dir);
    stuck = await gated(docsRepo, docs, 'pr', 'Document the setup');
    expect(env.runsOn(docsRepo, stuck.headSha).at(-1)?.conclusion).toBe('failure');

    const calc = prRepo(CALC_BASE, { 'tests/test_clock.py': FLIPS });
    const calcRepo = publishRepo(env.gh, 'acme', 'calc', calc.dir);
    const first = await gated(calcRepo, calc, 'pr', 'Time the clock');
    calc.git('checkout', '-q', '-B', 'pr2', 'main');
    calc.write({ 'tests/test_clock.py': FLIPS.replace('clock skew', 'clock skew again') }).commit('flip again');
    const second = await gated(calcRepo, calc, 'pr2', 'Time the clock again');
    for (const p of [first, second]) expect(env.runsOn(calcRepo, p.headSha).at(-1)?.conclusion).toBe('success');

    calc.git('checkout', '-q', '-B', 'pr3', 'main');
    calc
      .write({
        'calc/ops.py': 'def add(a, b):\n    return a - b\n',
        'tests/test_ops.py': `from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5, "${HOSTILE}"\n`,
      })
      .commit('subtract');
    regression = await gated(calcRepo, calc, 'pr3', 'Faster add');
    expect(env.runsOn(calcRepo, regression.headSha).at(-1)?.conclusion).toBe('failure');
  }, 900_000);

  it('a signed-out visitor is refused: the dashboard, a run page and /metrics answer 401 and show no data', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${env.app.url}/dashboard`);
    expect(res?.status()).toBe(401);
    await expect(page.locator('h2').first().innerText()).resolves.toBe('Sign in');
    expect(await page.locator('body').innerText()).not.toContain('acme/docs');
    await page.screenshot({ path: join(SHOTS, 'signed-out.png'), fullPage: true });
    const run = await page.goto(`${env.app.url}/dashboard/runs/00000000-0000-4000-8000-000000000000`);
    expect(run?.status()).toBe(401);
    expect((await fetch(`${env.app.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${env.app.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    // A wrong token in the form is refused too.
    await page.goto(`${env.app.url}/dashboard/login`);
    await page.fill('input[name=token]', 'not-the-token');
    await page.click('button[type=submit]');
    await expect(page.locator('.notice').innerText()).resolves.toContain('not the operator token');
    await page.close();
  }, 120_000);

  it('signed in: the STUCK PR with its red badge, the dead-link rule at a 50% dismissal rate, the known-flaky test', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page);
    const row = page.locator('tr.attention[data-kind="STUCK"]');
    await expect(row.count()).resolves.toBe(1);
    await expect(row.locator('a').first().innerText()).resolves.toBe(`acme/docs#${stuck.number}`);
    const badge = row.locator('.badge');
    await expect(badge.innerText()).resolves.toBe('STUCK');
    // Red: the badge's computed background colour, as a person sees it.
    await expect(badge.evaluate((el) => (globalThis as unknown as PageWindow).getComputedStyle(el).backgroundColor)).resolves.toBe(
      'rgb(207, 34, 46)',
    );
    await expect(row.locator('td.reason').innerText()).resolves.toContain('round 1 of 1');

    const rule = page.locator('tr.rule[data-rule="G14/dead-link"]');
    const cells = await rule.locator('td').allInnerTexts();
    // guard, category, raised, blocking, inline, command, label, rate
    expect(cells).toEqual(['G14', 'dead-link', '2', '1', '1', '0', '0', '50%']);

    const flaky = page.locator(`tr.flaky[data-test="${CLOCK}"]`);
    const flakyCells = await flaky.locator('td').allInnerTexts();
    expect(flakyCells.slice(0, 4)).toEqual([CLOCK, 'acme/calc', '2', 'known flaky']);
    expect(flakyCells[4]).toMatch(/acme\/calc#\d+, acme\/calc#\d+/);

    // The overview: both repositories, with a chart drawn by uPlot (served from the package).
    await expect(page.locator('section.repo').count()).resolves.toBe(2);
    await page.waitForSelector('section.repo .uplot canvas');
    await expect(page.locator('section.repo[data-repo="acme/calc"] dd').first().innerText()).resolves.toBe('3');
    await page.screenshot({ path: join(SHOTS, 'dashboard.png'), fullPage: true });
    await page.close();
  }, 120_000);

  it("a finding's HTML and @mention are shown as text on its run's page, never as markup", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    let dialogs = 0;
    page.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
    await signIn(page);
    const link = page.locator(`a[href$="/pull/${regression.number}"]`).first();
    const runHref = await link.locator('xpath=ancestor::tr').locator('a[href*="/dashboard/runs/"]').getAttribute('href');
    expect(runHref).toMatch(/^\/dashboard\/runs\/[0-9a-f-]{36}$/);
    await page.goto(`${env.app.url}${runHref!}`);
    const message = page.locator('tr.finding td.message').filter({ hasText: 'test_add' });
    await expect(message.innerText()).resolves.toContain(HOSTILE);
    await expect(message.locator('img, a, script').count()).resolves.toBe(0);
    await expect(page.locator('main img').count()).resolves.toBe(0);
    await expect(page.locator('.decision .badge').innerText()).resolves.not.toBe('PASS');
    await expect(page.locator('tr.stage').count()).resolves.toBeGreaterThan(3);
    await expect(page.locator('h3', { hasText: 'Coverage' }).count()).resolves.toBe(1);
    await page.screenshot({ path: join(SHOTS, 'run.png'), fullPage: true });
    expect(dialogs).toBe(0);
    await page.close();
  }, 120_000);

  it('/metrics parses as Prometheus text and counts the four gates by outcome, their stages and deliveries', async () => {
    const res = await fetch(`${env.app.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const m = parsePrometheusText(await res.text());
    expect(m.types.get('slopgate_gates_total')).toBe('counter');
    expect(m.types.get('slopgate_gate_duration_seconds')).toBe('histogram');
    expect(m.sum('slopgate_gates_total')).toBe(4);
    expect(m.sum('slopgate_gates_total', { outcome: 'STUCK' })).toBe(1);
    expect(m.sum('slopgate_gates_total', { outcome: 'PASS' })).toBe(2);
    expect(m.sum('slopgate_jobs_total', { result: 'reported' })).toBe(4);
    expect(m.sum('slopgate_gate_duration_seconds_count')).toBe(4);
    // G8 ran on the three calc PRs (acme/docs has no tests): three head suites, one baseline run and two from the cache.
    expect(m.sum('slopgate_stage_duration_seconds_count', { stage: 'tests:head' })).toBe(3);
    expect(m.sum('slopgate_baseline_cache_total')).toBe(3);
    expect(m.sum('slopgate_baseline_cache_total', { result: 'miss' })).toBeGreaterThanOrEqual(1);
    expect(m.sum('slopgate_webhook_deliveries_total', { event: 'pull_request', result: 'accepted' })).toBe(4);
    expect(m.sum('slopgate_webhook_lag_seconds_count')).toBe(4);
    expect(m.sum('slopgate_queue_depth', { state: 'pending' })).toBe(0);
    expect(m.sum('slopgate_queue_depth', { state: 'running' })).toBe(0);
    expect(m.sum('slopgate_queue_workers', { kind: 'concurrency' })).toBeGreaterThanOrEqual(1);
    expect(m.sum('slopgate_errors_total')).toBe(0);
  }, 60_000);

  it('no secret reached the logs', async () => {
    await env.app.stop();
    expect(env.leaks()).toEqual([]);
    expect(env.app.logs).not.toContain(TOKEN);
  }, 60_000);
});
