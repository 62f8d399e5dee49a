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
 * upper bound), preferring the Java versions its CI sets up (`ci`): the default JDK when it fits,
 * else the oldest one that fits; when none fits, the default, with a note. Never a finding: a build
 * the machine cannot compile fails at the base too.
 */
export function pickJdk(jdks: Jdk[], need: { min?: number; below?: number }, ci: number[] = []): { jdk: Jdk | null; note?: string } {
  if (jdks.length === 0) return { jdk: null };
  const fitsPom = (j: Jdk) => (need.min === undefined || j.major >= need.min) && (need.below === undefined || j.major < need.below);
  const inCi = (j: Jdk) => ci.length === 0 || ci.includes(j.major);
  const preferred = jdks[0]!;
  const oldestFirst = [...jdks].sort((a, b) => a.major - b.major);
  const best = [preferred, ...oldestFirst].find((j) => fitsPom(j) && inCi(j));
  const have = jdks.map((j) => j.version).join(', ');
  const ciText = ci.length ? `CI sets up Java ${[...new Set(ci)].sort((a, b) => a - b).join(', ')}` : '';
  if (best) return { jdk: best };
  const fallback = [preferred, ...oldestFirst].find(fitsPom);
  if (fallback) return { jdk: fallback, note: `${ciText}; this machine has ${have}, so JDK ${fallback.version} was used` };
  const wanted = [need.min !== undefined ? `${need.min} or newer` : '', need.below !== undefined ? `older than ${need.below}` : '']
    .filter(Boolean)
    .join(' and ');
  return {
    jdk: preferred,
    note: `the project asks for a JDK ${wanted}${ciText ? ` (${ciText})` : ''}; this machine has ${have}, so JDK ${preferred.version} was used`,
  };
}

/** The Java versions a repository's GitHub workflows set up: `java-version: 17`, matrices `java: [ 17, 21 ]`, `- java: 11`. */
export function ciJavaVersions(workflows: string[]): number[] {
  const out = new Set<number>();
  const add = (v: string) => {
    const m = /^\s*['"]?(?:1\.)?(\d+)/.exec(v);
    if (m && Number(m[1]) >= 6 && Number(m[1]) < 100) out.add(Number(m[1]));
  };
  for (const text of workflows) {
    for (const m of text.matchAll(/^\s*(?:-\s*)?(?:java-version|java|jdk|java_version|jdk-version)\s*:\s*(.+)$/gm)) {
      const value = m[1]!.replace(/\s+#.*$/, '').trim();
      if (value.startsWith('['))
        value
          .slice(1, value.indexOf(']') > 0 ? value.indexOf(']') : undefined)
          .split(',')
          .forEach(add);
      else add(value);
    }
  }
  return [...out];
}
