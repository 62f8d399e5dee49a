import { join } from 'node:path';
import type { TestOutcome, UnitStatus } from '../../core/suite-result.js';
import { shq } from '../../sandbox/index.js';
import { type RunContext, type Runner, type RunnerOutput } from '../runners/runner.js';

/**
 * A runner confined to one workspace package: its commands run in the package's folder, and what it
 * reports is made repository-wide — files get the folder in front, and test and unit ids the
 * folder as a prefix (`packages/b: js:test/sum.test.js > adds`), so that two packages' tests of the
 * same name stay apart. The report and findings show `cd <folder> && <command>`.
 */
export function packageRunner(inner: Runner, dir: string): Runner {
  const prefix = `${dir}: `;
  const file = (f: string | undefined) => (f === undefined ? undefined : f === '.' ? dir : `${dir}/${f}`);
  const outward = (out: RunnerOutput): RunnerOutput => ({
    ...out,
    tests: out.tests.map((t) => withFile({ ...t, id: prefix + t.id, unit: prefix + t.unit }, file(t.file))),
    units: out.units.map((u) => withFile({ ...u, id: prefix + u.id, group: prefix + u.group }, file(u.file))),
  });
  const inward = (t: TestOutcome): TestOutcome => {
    const f = t.file?.startsWith(`${dir}/`) ? t.file.slice(dir.length + 1) : t.file;
    return withFile({ ...t, id: strip(t.id, prefix), unit: strip(t.unit, prefix) }, f);
  };
  const scoped = (ctx: RunContext): RunContext => ({
    ...ctx,
    workdir: join(ctx.workdir, dir),
    exec: (command) => ctx.exec(`cd ${shq(dir)} && ${command}`),
  });
  const rerun = inner.rerun?.bind(inner);
  return {
    id: inner.id,
    command: `cd ${shq(dir)} && ${inner.command}`,
    displayCommand: `cd ${dir} && ${inner.displayCommand}`,
    run: async (ctx) => outward(await inner.run(scoped(ctx))),
    ...(rerun ? { rerun: async (ctx: RunContext, tests: TestOutcome[]) => outward(await rerun(scoped(ctx), tests.map(inward))) } : {}),
  };
}

function strip(id: string, prefix: string): string {
  return id.startsWith(prefix) ? id.slice(prefix.length) : id;
}

function withFile<T extends TestOutcome | UnitStatus>(item: T, file: string | undefined): T {
  const copy = { ...item };
  if (file === undefined) delete copy.file;
  else copy.file = file;
  return copy;
}
