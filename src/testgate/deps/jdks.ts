import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/**
 * The JDKs on this machine (the one `javac` on PATH belongs to first, then JAVA_HOME, then every JDK
 * under /usr/lib/jvm), and the choice among them for a Maven build that asks for a Java release.
 */

export interface Jdk {
  /** JAVA_HOME of the JDK (real path). */
  home: string;
  /** `17.0.15`, from the JDK's `release` file. */
  version: string;
  /** 17; 8 for `1.8.0_392`. */
  major: number;
}

/** A JDK home's version, from its `release` file (`JAVA_VERSION="17.0.15"`); null when it is not a JDK. */
function jdkAt(home: string): Jdk | null {
  if (!existsSync(join(home, 'bin', 'javac')) || !existsSync(join(home, 'bin', 'java'))) return null;
  try {
    const release = readFileSync(join(home, 'release'), 'utf8');
    const version = /^JAVA_VERSION="?([^"\n]+)"?/m.exec(release)?.[1];
    if (!version) return null;
    const major = Number(/^(?:1\.)?(\d+)/.exec(version)?.[1]);
    return Number.isFinite(major) ? { home, version, major } : null;
  } catch {
    return null;
  }
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

let found: Jdk[] | null = null;

/** The machine's JDKs, the default (PATH's `javac`) first; once per process. */
export function findJdks(env: NodeJS.ProcessEnv = process.env): Jdk[] {
  if (found && env === process.env) return found;
  const homes: string[] = [];
  for (const dir of (env.PATH ?? '').split(delimiter).filter((d) => d.startsWith('/'))) {
    const javac = realOrNull(join(dir, 'javac'));
    if (javac) {
      homes.push(dirname(dirname(javac)));
      break;
    }
  }
  if (env.JAVA_HOME) homes.push(env.JAVA_HOME);
  try {
    for (const name of readdirSync('/usr/lib/jvm').sort()) homes.push(join('/usr/lib/jvm', name));
  } catch {
    // no system JDKs
  }
  const out: Jdk[] = [];
  const seen = new Set<string>();
  for (const h of homes) {
    const real = realOrNull(h);
    if (!real || seen.has(real)) continue;
    seen.add(real);
    const jdk = jdkAt(real);
    if (jdk) out.push(jdk);
  }
  if (env === process.env) found = out;
  return out;
}

/**
 * The JDK for a build that needs at least release `min` and less than `below` (the enforcer's
 * upper bound): the default JDK when it fits, else the oldest one that fits; when none fits, the
 * default, with a note. Never a finding: a build the machine cannot compile fails at the base too.
 */
export function pickJdk(jdks: Jdk[], need: { min?: number; below?: number }): { jdk: Jdk | null; note?: string } {
  if (jdks.length === 0) return { jdk: null };
  const fits = (j: Jdk) => (need.min === undefined || j.major >= need.min) && (need.below === undefined || j.major < need.below);
  const preferred = jdks[0]!;
  if (fits(preferred)) return { jdk: preferred };
  const candidates = jdks.filter(fits).sort((a, b) => a.major - b.major);
  if (candidates[0]) return { jdk: candidates[0] };
  const wanted = [need.min !== undefined ? `${need.min} or newer` : '', need.below !== undefined ? `older than ${need.below}` : '']
    .filter(Boolean)
    .join(' and ');
  return {
    jdk: preferred,
    note: `the project asks for a JDK ${wanted}; this machine has ${jdks.map((j) => j.version).join(', ')}, so JDK ${preferred.version} was used`,
  };
}
