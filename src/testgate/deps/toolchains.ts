import { execFile } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { depCacheOptionsFromEnv } from './dep-cache.js';
import { PythonProbeCache, probeKey } from './python-probe-cache.js';

const run = promisify(execFile);

/**
 * The toolchains on this machine that an install and the tests can use, with their versions, and the
 * choice among several when a project declares what it needs (`requires-python`,
 * `.python-version`). A version the machine cannot satisfy is said in the report; it is never turned
 * into a finding against the code.
 */

export interface PythonInterpreter {
  /** The interpreter binary (real path). */
  path: string;
  version: string;
  /** sys.base_prefix: mounted read-only into the sandbox when it is outside the usual toolchain roots. */
  prefix: string;
  /** It can create virtual environments (venv and ensurepip importable). */
  venv: boolean;
}

const PROBE =
  'import sys, importlib.util as u; print(".".join(map(str, sys.version_info[:3]))); print(sys.base_prefix); print(bool(u.find_spec("venv") and u.find_spec("ensurepip")))';

let pythons: Promise<PythonInterpreter[]> | null = null;

/** Where the probes' answers are kept between runs: beside the dependency cache (see python-probe-cache.ts). */
function pythonProbeCacheFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(depCacheOptionsFromEnv(env).root, '.toolchains', 'python-probes.json');
}

/**
 * Every Python 3 interpreter on PATH, in pyenv's versions and in /usr/bin, once per process; PATH's
 * `python3` first. `probeCache`: the file of kept probe answers (null: probe every interpreter).
 */
export function findPythons(
  env: NodeJS.ProcessEnv = process.env,
  probeCache: string | null = pythonProbeCacheFile(),
): Promise<PythonInterpreter[]> {
  pythons ??= (async () => {
    const candidates: string[] = [];
    const dirs = (env.PATH ?? '').split(delimiter).filter((d) => d.startsWith('/'));
    for (const d of dirs) for (const n of ['python3']) if (existsSync(join(d, n))) candidates.push(join(d, n));
    const pyenv = env.PYENV_ROOT ?? join(homedir(), '.pyenv');
    for (const d of [...dirs, '/usr/bin', '/usr/local/bin']) {
      // pyenv's python3.X shims run versions/<3.X.y>/bin/python3.X, which are probed below; each shim
      // costs a shell and pyenv's own start-up (about 0.3 s of CPU), so ten of them cost a second a run.
      if (d.replace(/\/+$/, '') === join(pyenv, 'shims')) continue;
      let names: string[] = [];
      try {
        names = readdirSync(d).filter((n) => /^python3\.\d+$/.test(n));
      } catch {
        continue;
      }
      for (const n of names) candidates.push(join(d, n));
    }
    try {
      for (const v of readdirSync(join(pyenv, 'versions'))) candidates.push(join(pyenv, 'versions', v, 'bin', 'python3'));
    } catch {
      // no pyenv
    }
    // The same binary under several names is probed once; the probes run side by side (pyenv's shims
    // are shell scripts, and probing nine interpreters one after another took 1.6 s of every CLI run).
    const reals = new Map<string, string>();
    for (const c of candidates) {
      try {
        const real = realpathSync(c);
        if (![...reals.values()].includes(real)) reals.set(c, real);
      } catch {
        continue;
      }
    }
    const kept = await PythonProbeCache.open(probeCache);
    const probeEnv = { PATH: env.PATH ?? '' };
    const probed = await Promise.all(
      [...reals].map(async ([c, real]) => {
        const key = probeKey(c, real, probeEnv);
        const known = kept.get(c, key);
        if (known) return known;
        // pyenv's shims pick a version themselves: probe what they run, keep the real binary.
        try {
          const { stdout } = await run(c, ['-c', `${PROBE}; print(sys.executable)`], { timeout: 120_000, env: probeEnv });
          const [version, prefix, venv, exe] = stdout.trim().split('\n');
          if (!version || !prefix) return null;
          const answer = { path: exe ? realpathSync(exe) : real, version, prefix, venv: venv === 'True' };
          kept.set(c, key, answer);
          return answer;
        } catch {
          return null;
        }
      }),
    );
    await kept.save();
    const seen = new Set<string>();
    const out: PythonInterpreter[] = [];
    for (const p of probed) {
      if (!p || seen.has(p.path)) continue;
      seen.add(p.path);
      out.push(p);
    }
    return out;
  })();
  return pythons;
}

function release(v: string): number[] {
  return (/^\s*v?(\d+(?:\.\d+)*)/.exec(v)?.[1] ?? '0').split('.').map(Number);
}

function cmp(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/**
 * Whether a release version (`3.11.7`) satisfies a PEP 440 specifier set (`>=3.9,<4`, `~=3.10`,
 * `==3.11.*`, `!=3.9.0`). Only what `requires-python` uses in practice; an operator it does not know
 * counts as satisfied (the install then says what is wrong).
 */
export function satisfiesPep440(version: string, spec: string): boolean {
  const v = release(version);
  for (const raw of spec.split(',')) {
    const m = /^\s*(~=|===|==|!=|<=|>=|<|>)\s*([\d.*]+)\s*$/.exec(raw);
    if (!m) continue;
    const [, op, target = ''] = m;
    const wildcard = target.endsWith('.*');
    const t = release(target.replace(/\.\*$/, ''));
    const prefixEq = cmp(v.slice(0, t.length), t) === 0;
    switch (op) {
      case '==':
      case '===':
        if (wildcard ? !prefixEq : cmp(v, t) !== 0) return false;
        break;
      case '!=':
        if (wildcard ? prefixEq : cmp(v, t) === 0) return false;
        break;
      case '>=':
        if (cmp(v, t) < 0) return false;
        break;
      case '<=':
        if (cmp(v, t) > 0) return false;
        break;
      case '>':
        if (cmp(v, t) <= 0) return false;
        break;
      case '<':
        if (cmp(v, t) >= 0) return false;
        break;
      case '~=': {
        if (cmp(v, t) < 0) return false;
        const head = t.slice(0, Math.max(1, t.length - 1));
        if (cmp(v.slice(0, head.length), head) !== 0) return false;
        break;
      }
    }
  }
  return true;
}

/**
 * The interpreter for a project: one that can make a venv and satisfies `requires-python` (and
 * matches `.python-version` when one does); among those, PATH's own `python3` first, else the newest.
 */
export function pickPython(
  all: PythonInterpreter[],
  requiresPython: string | null,
  pinned: string | null,
): { python: PythonInterpreter | null; notes: string[] } {
  const notes: string[] = [];
  const usable = all.filter((p) => p.venv);
  if (usable.length === 0)
    return { python: null, notes: ['no Python interpreter on this machine can create a virtual environment (venv and ensurepip)'] };
  const fits = requiresPython ? usable.filter((p) => satisfiesPep440(p.version, requiresPython)) : usable;
  const newest = (list: PythonInterpreter[]) => [...list].sort((a, b) => cmp(release(b.version), release(a.version)))[0]!;
  if (fits.length === 0) {
    const used = newest(usable);
    notes.push(
      `the project needs Python ${requiresPython}; none of this machine's interpreters (${usable.map((p) => p.version).join(', ')}) satisfies it, so Python ${used.version} was used`,
    );
    return { python: used, notes };
  }
  if (pinned) {
    const want = release(pinned);
    const match = fits.filter((p) => cmp(release(p.version).slice(0, want.length), want) === 0);
    if (match.length) return { python: newest(match), notes };
    notes.push(`.python-version asks for ${pinned}; not installed here`);
  }
  // The operator's default (PATH's python3) when it fits, else the newest that does.
  const preferred = usable[0]!;
  return { python: fits.includes(preferred) ? preferred : newest(fits), notes };
}

/** The first line a tool prints for `--version` (or the given args), or null when it does not run. */
export async function toolVersion(cmd: string, args: string[] = ['--version']): Promise<string | null> {
  try {
    // Generous: a version answers at once, but rustup's proxies and pyenv shims are slow on a loaded machine,
    // and a timeout here reads as "not installed".
    const { stdout, stderr } = await run(cmd, args, { timeout: 120_000 });
    const text = (stdout || stderr).trim().split('\n')[0] ?? '';
    return /(\d+\.\d+(?:\.\d+)?)/.exec(text)?.[1] ?? null;
  } catch {
    return null;
  }
}
