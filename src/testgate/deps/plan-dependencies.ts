import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Revision } from '../../core/revision.js';
import type { RunnerId } from '../../core/suite-result.js';
import { planCargo } from './cargo-deps.js';
import type { DepsPlan, NoInstall } from './deps-plan.js';
import { planGo } from './go-deps.js';
import { planMaven } from './maven-deps.js';
import { planNpm } from './npm-deps.js';
import { planPython } from './python-deps.js';
import { registryEnvFor, skipDownloadEnvFor } from './registry-env.js';
import { toolVersion } from './toolchains.js';

/**
 * What a tree needs installed, before anything is: the ecosystem's plan (from the runner, or for a
 * custom command the tree's first manifest) and the cache key its dependency files decide.
 */

const run = promisify(execFile);

/** Bump when what an entry holds changes shape: older entries are then simply not found. */
const PLAN_VERSION = 2;

/**
 * The machine's toolchain versions, each asked once per process and only when an ecosystem that
 * needs it is planned: a Python project does not wait for `rustc --version` (rustup's proxy alone
 * took 0.4–1.2 s of every run's planning).
 */
const versions = new Map<string, Promise<unknown>>();
function once<T>(name: string, ask: () => Promise<T>): Promise<T> {
  let p = versions.get(name) as Promise<T> | undefined;
  if (!p) {
    p = ask();
    versions.set(name, p);
  }
  return p;
}
const nodeVersion = () => once('node', () => toolVersion('node'));
const goVersion = () => once('go', () => toolVersion('go', ['version']));
const rustcVersion = () => once('rustc', () => toolVersion('rustc'));
const rustToolchains = () =>
  once('rustup', () =>
    run('rustup', ['toolchain', 'list'], { timeout: 120_000 }).then(
      (r) => r.stdout.split('\n').filter((l) => l.trim()),
      () => [] as string[],
    ),
  );

/** The ecosystem whose dependencies a runner needs (a custom command: the first manifest of the tree). */
async function planFor(rev: Revision, runner: RunnerId, floor?: Revision): Promise<DepsPlan | NoInstall | null> {
  const node = async () => {
    const v = await nodeVersion();
    return v ? planNpm(rev, v, floor) : { none: 'node is not installed on this machine' };
  };
  const python = () => planPython(rev, floor);
  const go = async () => {
    const v = await goVersion();
    return v ? planGo(rev, v) : { none: 'go is not installed on this machine' };
  };
  const cargo = async () => {
    const [rustc, list] = await Promise.all([rustcVersion(), rustToolchains()]);
    return rustc ? planCargo(rev, rustc, list) : { none: 'cargo is not installed on this machine' };
  };
  switch (runner) {
    case 'pytest':
      return python();
    case 'go':
      return go();
    case 'cargo':
      return cargo();
    case 'maven':
      return planMaven(rev);
    case 'custom': {
      if (await rev.has('package.json')) return node();
      if (await rev.has('go.mod')) return go();
      if (await rev.has('Cargo.toml')) return cargo();
      if (await rev.has('pom.xml')) return planMaven(rev);
      const paths = await rev.paths();
      if (paths.some((p) => /^(pyproject\.toml|setup\.py|setup\.cfg|requirements[^/]*\.txt)$/.test(p))) return python();
      return null;
    }
    default:
      return node();
  }
}

function cacheKey(plan: DepsPlan): string {
  const h = createHash('sha256');
  h.update(
    `v${PLAN_VERSION}\0${plan.ecosystem}\0${process.platform}-${process.arch}\0${JSON.stringify({ ...registryEnvFor(plan.ecosystem), ...skipDownloadEnvFor(plan.ecosystem) })}\0${plan.script}\0`,
  );
  h.update(plan.keyMaterial);
  return `${plan.ecosystem}-${h.digest('hex').slice(0, 32)}`;
}

/** A tree's dependency plan and its key, before anything is installed. */
export interface PlannedDeps {
  rev: Revision;
  plan: DepsPlan | NoInstall | null;
  /** What the dependency files decide (ecosystem and hash); the entry's key adds the tree where the install runs the tree's code. */
  key?: string;
}

/** `floor`: the base, when `rev` is a PR's side (see resolveAsOf). */
export async function planDependencies(rev: Revision, runner: RunnerId, floor?: Revision): Promise<PlannedDeps> {
  const plan = await planFor(rev, runner, floor);
  return { rev, plan, ...(plan && 'ecosystem' in plan ? { key: cacheKey(plan) } : {}) };
}
