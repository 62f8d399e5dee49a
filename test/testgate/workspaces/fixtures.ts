import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCheck } from '../../../src/cli.js';
import type { Report } from '../../../src/core/report.js';
import type { PackageTests, TestsSection } from '../../../src/core/report-sections.js';
import type { TestRepo } from '../../helpers/git-repo.js';

/**
 * Runs `slopgate check --only G8 --format json` (the real CLI) on main → pr (or `opts.head`) with the
 * given config; `opts.db` keeps the runs (and the cached baselines) in that store, as `--db` does.
 */
export async function checkTests(
  repo: TestRepo,
  config = 'tests:\n  timeoutSec: 120\n  reruns: 1\n',
  opts: { head?: string; db?: string } = {},
): Promise<{ code: number; report: Report }> {
  const file = join(repo.dir, '..', `${repo.dir.split('/').pop()}-slopgate.yml`);
  writeFileSync(file, config);
  let out = '';
  const code = await runCheck(
    {
      repo: repo.dir,
      base: 'main',
      head: opts.head ?? 'pr',
      format: 'json',
      strict: false,
      only: ['G8'],
      config: file,
      ...(opts.db ? { db: opts.db } : {}),
    },
    (s) => (out += s),
  );
  return { code, report: JSON.parse(out) as Report };
}

export function tests(report: Report): TestsSection {
  return report.sections.tests!;
}

/** The packages that ran, as `dir:reason`. */
export function ran(report: Report): string[] {
  return (tests(report).workspace?.packages ?? []).map((p: PackageTests) => `${p.dir}:${p.reason}`);
}
