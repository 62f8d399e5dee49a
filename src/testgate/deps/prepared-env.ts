import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { NODE_MODULES_CACHES, type Ecosystem, type RunDeps } from './deps-plan.js';

/**
 * The environment a CI workflow prepared before the slopgate step (the GitHub Action): the
 * workspace's node_modules, the active virtualenv, the Go module cache. Shared read-only with the
 * test runs of a side whose dependency files are those of the workspace, so that a workflow that
 * installs before gating has a working test gate without any slopgate config and without a second
 * install. The interpreter a workflow set up (actions/setup-python, setup-node) is on PATH and
 * mounted with the other toolchains already.
 */

async function nodeModulesDirs(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number) => {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name === '.git') continue;
      const p = join(dir, name);
      const st = await lstat(p).catch(() => null);
      if (!st?.isDirectory()) continue;
      if (name === 'node_modules') out.push(relative(root, p));
      else if (depth < 6) await walk(p, depth + 1);
    }
  };
  await walk(root, 0);
  return out.sort();
}

/** What a suite run mounts from the workflow's environment, or null when the workflow prepared nothing for this ecosystem. */
export async function preparedRunDeps(eco: Ecosystem, workspace: string, env: NodeJS.ProcessEnv = process.env): Promise<RunDeps | null> {
  if (eco === 'npm' || eco === 'pnpm' || eco === 'yarn') {
    const dirs = await nodeModulesDirs(workspace);
    if (!dirs.length) return null;
    // The caches tools write into node_modules get a private tmpfs each; their mount points must exist.
    for (const d of dirs)
      for (const c of NODE_MODULES_CACHES) await mkdir(join(workspace, d, c), { recursive: true }).catch(() => undefined);
    return {
      binds: dirs.map((d) => ({ src: join(workspace, d), dest: d })),
      tmpfs: dirs.flatMap((d) => NODE_MODULES_CACHES.map((c) => `${d}/${c}`)),
      env: {},
      path: [],
    };
  }
  if (eco === 'python') {
    const venv = env.VIRTUAL_ENV;
    if (venv && existsSync(join(venv, 'bin', 'python'))) {
      return { binds: [{ src: venv, dest: venv }], tmpfs: [], env: { VIRTUAL_ENV: venv }, path: [join(venv, 'bin')] };
    }
    // setup-python's interpreter (with what the workflow pip-installed) is on PATH: the toolchain mounts show it.
    return env.pythonLocation ? { binds: [], tmpfs: [], env: {}, path: [] } : null;
  }
  if (eco === 'go') {
    const cache = env.GOMODCACHE ?? (env.GOPATH ? join(env.GOPATH.split(':')[0]!, 'pkg', 'mod') : undefined);
    if (!cache || !existsSync(cache)) return null;
    return { binds: [{ src: cache, dest: cache }], tmpfs: [], env: { GOMODCACHE: cache, GOPROXY: 'off' }, path: [] };
  }
  // cargo: the registry under CARGO_HOME is mounted read-only into every run's private CARGO_HOME already.
  const cargoHome = env.CARGO_HOME ?? (env.HOME ? join(env.HOME, '.cargo') : undefined);
  return cargoHome && existsSync(join(cargoHome, 'registry')) ? { binds: [], tmpfs: [], env: {}, path: [] } : null;
}
