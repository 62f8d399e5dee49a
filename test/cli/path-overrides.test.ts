import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/cli.js';
import type { Report } from '../../src/core/report.js';
import { prRepo } from '../helpers/git-repo.js';

const BASE = {
  'packages/api/README.md': '# api\n',
  'packages/legacy/README.md': '# legacy\n',
};
const HEAD = {
  'packages/api/README.md': '# api\n\nSee [the guide](guide.md).\n',
  'packages/legacy/README.md': '# legacy\n\nSee [the guide](guide.md).\n',
};

async function check(config: string, head: Record<string, string> = HEAD): Promise<{ code: number; report: Report }> {
  const repo = prRepo(BASE, head);
  const file = join(repo.dir, '..', `${repo.dir.split('/').pop()}-overrides.yml`);
  writeFileSync(file, config);
  let out = '';
  const code = await runCheck(
    { repo: repo.dir, base: 'main', head: 'pr', format: 'json', strict: false, noTests: true, config: file },
    (s) => (out += s),
  );
  return { code, report: JSON.parse(out) as Report };
}

const deadLinks = (r: Report) => r.findings.filter((f) => f.category === 'dead-link');

describe('config overrides by path', () => {
  it('without overrides both packages get the dead-link finding', async () => {
    const { report } = await check('version: 1\n');
    expect(deadLinks(report).map((f) => [f.path, f.severity])).toEqual([
      ['packages/api/README.md', 'risk'],
      ['packages/legacy/README.md', 'risk'],
    ]);
  });

  it('a guard disabled for packages/legacy/** does not look at its files; packages/api keeps it', async () => {
    const { report } = await check("overrides:\n  - paths: ['packages/legacy/**']\n    guards:\n      disable: [G14]\n");
    expect(deadLinks(report).map((f) => f.path)).toEqual(['packages/api/README.md']);
  });

  it('a guard off at the top level and enabled for one path runs only there', async () => {
    const { report } = await check(
      "guards:\n  disable: [G14]\noverrides:\n  - paths: ['packages/api/**']\n    guards:\n      enable: [G14]\n",
    );
    expect(deadLinks(report).map((f) => f.path)).toEqual(['packages/api/README.md']);
    expect(report.guards.find((g) => g.id === 'G14')?.status).toBe('risk'); // its one finding is a risk
  });

  it('severities by path: fail in api, nit in legacy; the message says the config set it; a later entry wins', async () => {
    const config = [
      'severity:',
      '  dead-link: fail',
      'overrides:',
      "  - paths: ['packages/**']",
      '    severity:',
      '      dead-link: risk',
      "  - paths: ['packages/legacy/**']",
      '    severity:',
      '      dead-link: nit',
      "  - paths: ['packages/api/**']",
      '    severity:',
      '      dead-link: fail',
      '',
    ].join('\n');
    const { code, report } = await check(config);
    const found = deadLinks(report);
    expect(found.map((f) => [f.path, f.severity])).toEqual([
      ['packages/api/README.md', 'fail'],
      ['packages/legacy/README.md', 'nit'],
    ]);
    expect(found[1]!.message).toMatch(/Severity nit, not risk: set in the config for dead-link/);
    expect(code).toBe(1);
  });

  it("an override's standing dismissal covers its own paths when it names none", async () => {
    const config =
      "overrides:\n  - paths: ['packages/legacy/**']\n    ignore:\n      findings:\n        - category: dead-link\n          reason: frozen docs\n";
    const { report } = await check(config);
    const found = deadLinks(report);
    expect(found.find((f) => f.path === 'packages/legacy/README.md')?.dismissed).toMatchObject({ reason: 'frozen docs', source: 'config' });
    expect(found.find((f) => f.path === 'packages/api/README.md')?.dismissed).toBeUndefined();
  });

  it('ignore.inline by path: a slopgate-ignore comment dismisses in api; in legacy, where the override turns them off, it does not', async () => {
    const marked = (name: string) => `# ${name}\n\n<!-- slopgate-ignore dead-link: the guide ships later -->\nSee [the guide](guide.md).\n`;
    const { report } = await check("overrides:\n  - paths: ['packages/legacy/**']\n    ignore:\n      inline: false\n", {
      'packages/api/README.md': marked('api'),
      'packages/legacy/README.md': marked('legacy'),
    });
    const found = deadLinks(report);
    expect(found.find((f) => f.path === 'packages/api/README.md')?.dismissed).toMatchObject({
      source: 'inline',
      reason: 'the guide ships later',
    });
    const legacy = found.find((f) => f.path === 'packages/legacy/README.md')!;
    expect(legacy.dismissed).toBeUndefined();
    expect(legacy.message).toContain('inline dismissals are turned off (ignore.inline)');
  });

  it('ignore.inlineMaxSeverity by path: nit at the top level refuses a risk finding; an override raises it to risk for api only', async () => {
    const marked = (name: string) => `# ${name}\n\nSee [the guide](guide.md). <!-- slopgate-ignore dead-link: the guide ships later -->\n`;
    const config =
      "ignore:\n  inlineMaxSeverity: nit\noverrides:\n  - paths: ['packages/api/**']\n    ignore:\n      inlineMaxSeverity: risk\n";
    const { report } = await check(config, { 'packages/api/README.md': marked('api'), 'packages/legacy/README.md': marked('legacy') });
    const found = deadLinks(report);
    expect(found.map((f) => [f.path, f.severity, f.dismissed?.source ?? null])).toEqual([
      ['packages/api/README.md', 'risk', 'inline'],
      ['packages/legacy/README.md', 'risk', null],
    ]);
    expect(found[1]!.message).toContain('inline comments may dismiss only findings up to nit (ignore.inlineMaxSeverity)');
  });

  it('refuses a severity for a check that could not run (guard-error), naming the line', async () => {
    await expect(check("overrides:\n  - paths: ['**']\n    severity:\n      guard-error: nit\n")).rejects.toThrow(
      /overrides\.0\.severity\.guard-error: the severity of 'guard-error' cannot be changed/,
    );
  });
});
