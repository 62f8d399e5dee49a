import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestOutcome } from '../../core/suite-result.js';
import { parseJunitXml, readJunitFile } from './junit-xml.js';
import { shortMessage } from './runner.js';

/**
 * Surefire's and Failsafe's XML reports (`<module>/target/{surefire,failsafe}-reports/TEST-*.xml`)
 * as test outcomes. Ids: `java:<class>#<method>` for the root module, `java:<module dir>:<class>#<method>`
 * for the others; the unit is the module, `maven:<module dir>`. The tree is walked without following
 * symbolic links, after the sandbox is gone, and every report is read with the safe reader.
 */

const REPORT_DIRS = ['surefire-reports', 'failsafe-reports'];
/** Directories that never hold a module. */
const SKIP = new Set(['.git', '.mvn', '.idea', 'node_modules', 'src']);
const MAX_DEPTH = 10;
const MAX_DIRS = 50_000;
const MAX_REPORTS = 20_000;

export interface ReportFile {
  /** Module directory, repository-relative (`.` for the root). */
  module: string;
  path: string;
}

async function entries(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Every `TEST-*.xml` under a module's `target/surefire-reports` or `target/failsafe-reports`. */
export async function findMavenReports(workdir: string): Promise<ReportFile[]> {
  const out: ReportFile[] = [];
  let dirs = 0;
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || ++dirs > MAX_DIRS || out.length >= MAX_REPORTS) return;
    const abs = rel === '.' ? workdir : join(workdir, rel);
    for (const e of await entries(abs)) {
      // Dirent types come from the entry itself: a symbolic link is never a directory here.
      if (!e.isDirectory() || SKIP.has(e.name)) continue;
      const child = rel === '.' ? e.name : `${rel}/${e.name}`;
      if (e.name !== 'target') {
        await walk(child, depth + 1);
        continue;
      }
      for (const r of await entries(join(workdir, child))) {
        if (!r.isDirectory() || !REPORT_DIRS.includes(r.name)) continue;
        for (const f of await entries(join(workdir, child, r.name))) {
          if (f.isFile() && /^TEST-.+\.xml$/.test(f.name) && out.length < MAX_REPORTS)
            out.push({ module: rel, path: join(workdir, child, r.name, f.name) });
        }
      }
    }
  };
  await walk('.', 0);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

export function mavenUnitId(module: string): string {
  return `maven:${module}`;
}

export function mavenTestId(module: string, classname: string, name: string): string {
  return module === '.' ? `java:${classname}#${name}` : `java:${module}:${classname}#${name}`;
}

/** The module, class and test name of a `java:` id. */
export function parseMavenTestId(id: string): { module: string; classname: string; name: string } | null {
  if (!id.startsWith('java:')) return null;
  const rest = id.slice('java:'.length);
  const hash = rest.indexOf('#');
  if (hash < 0) return null;
  const head = rest.slice(0, hash);
  const colon = head.lastIndexOf(':');
  return {
    module: colon < 0 ? '.' : head.slice(0, colon),
    classname: colon < 0 ? head : head.slice(colon + 1),
    name: rest.slice(hash + 1),
  };
}

/** Where a test class's source usually is: `src/test/{java,kotlin,groovy,scala}/<package path>/<outer class>.<ext>`. */
async function sourceOf(workdir: string, module: string, classname: string): Promise<string | undefined> {
  const outer = classname.split('$')[0]!;
  const rel = outer.replace(/\./g, '/');
  const prefix = module === '.' ? '' : `${module}/`;
  for (const [lang, ext] of [
    ['java', 'java'],
    ['kotlin', 'kt'],
    ['groovy', 'groovy'],
    ['scala', 'scala'],
    ['java', 'kt'],
  ] as const) {
    const path = `${prefix}src/test/${lang}/${rel}.${ext}`;
    const st = await lstat(join(workdir, path)).catch(() => null);
    if (st?.isFile()) return path;
  }
  return undefined;
}

/** Test outcomes from the reports; a test reported more than once (repetitions) fails if any run failed. */
export async function readMavenReports(workdir: string, reports: ReportFile[]): Promise<TestOutcome[]> {
  const tests = new Map<string, TestOutcome>();
  const files = new Map<string, string | undefined>();
  for (const r of reports) {
    let cases;
    try {
      cases = parseJunitXml(await readJunitFile(r.path));
    } catch {
      continue; // cut short (a crashed fork) or not a report
    }
    for (const c of cases) {
      if (!c.classname) continue;
      const id = mavenTestId(r.module, c.classname, c.name || '(class)');
      const key = `${r.module}\0${c.classname}`;
      if (!files.has(key)) files.set(key, await sourceOf(workdir, r.module, c.classname));
      const file = files.get(key);
      const prev = tests.get(id);
      if (prev && (prev.status === 'failed' || c.status !== 'failed')) continue;
      const t: TestOutcome = { id, status: c.status, unit: mavenUnitId(r.module), ...(file ? { file } : {}) };
      const msg = c.status === 'failed' ? shortMessage(c.message) : undefined;
      if (msg) t.message = msg;
      tests.set(id, t);
    }
  }
  return [...tests.values()];
}
