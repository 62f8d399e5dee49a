import { posix } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { dig, isTable } from '../repo/manifests/toml-read.js';

/**
 * The modules of a Maven build as its poms declare them: the root `pom.xml`, then every
 * `<module>` (of the project and of its profiles), recursively. Read by the dependency plan (which
 * poms decide the install, which artifacts are the build's own) and by the runner (which directory a
 * `… on project <artifactId>` error belongs to). Paths are repository-relative, `.` for the root.
 */

export interface MavenModule {
  /** Directory of the module, `.` for the root. */
  dir: string;
  /** Its pom, repository-relative (`pom.xml` unless a `<module>` names another file). */
  pom: string;
  /** `groupId` (inherited from `<parent>` when absent); may hold an unexpanded `${…}`. */
  groupId: string;
  artifactId: string;
}

/** More modules than this is not a build anyone runs; the walk stops there. */
const MAX_MODULES = 2000;

const xml = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  processEntities: false,
  isArray: (name) => name === 'module' || name === 'profile',
});

function text(v: unknown): string {
  return typeof v === 'string' ? v.trim() : '';
}

interface PomHead {
  groupId: string;
  artifactId: string;
  modules: string[];
}

/** The coordinates and module entries of one pom; null when it is not a Maven pom. */
export function readPomHead(pomText: string): PomHead | null {
  let doc: unknown;
  try {
    doc = xml.parse(pomText);
  } catch {
    return null;
  }
  const project = dig(doc, 'project');
  if (!isTable(project)) return null;
  const modules: string[] = [];
  const add = (list: unknown) => {
    if (Array.isArray(list)) for (const m of list) if (text(m)) modules.push(text(m));
  };
  add(dig(project, 'modules', 'module'));
  const profiles = dig(project, 'profiles', 'profile');
  if (Array.isArray(profiles)) for (const p of profiles) add(dig(p, 'modules', 'module'));
  return {
    groupId: text(project.groupId) || text(dig(project, 'parent', 'groupId')),
    artifactId: text(project.artifactId),
    modules,
  };
}

/** A `<module>` entry resolved against its parent's dir: the module's dir and pom, or null when it leaves the tree. */
function resolveModule(parentDir: string, entry: string): { dir: string; pom: string } | null {
  if (entry.includes('\\') || posix.isAbsolute(entry)) return null;
  const target = posix.normalize(posix.join(parentDir, entry));
  if (target === '..' || target.startsWith('../')) return null;
  if (/\.xml$/i.test(target)) return { dir: posix.dirname(target), pom: target };
  const dir = target.replace(/\/+$/, '') || '.';
  return { dir, pom: dir === '.' ? 'pom.xml' : `${dir}/pom.xml` };
}

/**
 * Every module of the build reachable from the root pom (profiles included, whether active or not:
 * a module only some profile builds is still one of the build's own artifacts).
 */
export async function readMavenModules(readText: (path: string) => Promise<string | null>): Promise<MavenModule[]> {
  const out: MavenModule[] = [];
  const seen = new Set<string>();
  const queue: { dir: string; pom: string }[] = [{ dir: '.', pom: 'pom.xml' }];
  for (let next = queue.shift(); next && out.length < MAX_MODULES; next = queue.shift()) {
    if (seen.has(next.pom)) continue;
    seen.add(next.pom);
    const body = await readText(next.pom);
    const head = body === null ? null : readPomHead(body);
    if (!head) continue;
    out.push({ dir: next.dir, pom: next.pom, groupId: head.groupId, artifactId: head.artifactId });
    for (const m of head.modules) {
      const r = resolveModule(next.dir, m);
      if (r) queue.push(r);
    }
  }
  return out;
}

/**
 * The Java release a build asks for: the highest of `maven.compiler.release|source|target`,
 * `<release>`, `java.version`-style properties and the lower bound of an enforcer
 * `requireJavaVersion`, across the given poms; plus the enforcer's exclusive upper bound, if any.
 * Values that are property references (`${…}`) are not followed.
 */
export function requiredJava(poms: string[]): { min?: number; below?: number } {
  let min: number | undefined;
  let below: number | undefined;
  const major = (v: string): number | undefined => {
    const m = /^\s*(?:1\.)?(\d+)/.exec(v);
    return m ? Number(m[1]) : undefined;
  };
  const raise = (v: number | undefined) => {
    if (v !== undefined && v >= 5 && v < 100) min = Math.max(min ?? 0, v);
  };
  for (const pom of poms) {
    for (const m of pom.matchAll(
      /<(maven\.compiler\.(?:release|source|target)|release|java\.version|jdk\.version|java\.release)>\s*([\d.]+)\s*<\/\1>/g,
    ))
      raise(major(m[2]!));
    for (const m of pom.matchAll(/<requireJavaVersion>[\s\S]*?<version>\s*([^<]+?)\s*<\/version>[\s\S]*?<\/requireJavaVersion>/g)) {
      const range = m[1]!;
      const r = /^([[(])\s*([\d.]*)\s*,\s*([\d.]*)\s*([)\]])$/.exec(range);
      if (!r) {
        raise(major(range));
        continue;
      }
      raise(r[2] ? major(r[2]) : undefined);
      const upper = r[3] ? major(r[3]) : undefined;
      if (upper !== undefined) {
        // `[17,22)` excludes 22; `[17,21]` and `[17,21.0.2]` allow 21.
        const excl = r[4] === ')' ? upper : upper + 1;
        below = below === undefined ? excl : Math.min(below, excl);
      }
    }
  }
  return { ...(min !== undefined ? { min } : {}), ...(below !== undefined ? { below } : {}) };
}
