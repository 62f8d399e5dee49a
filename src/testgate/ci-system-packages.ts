import { execFile } from 'node:child_process';
import type { Revision } from '../core/revision.js';

/**
 * The system packages a project's CI installs (`apt-get install …` / `apt install …` lines in its
 * GitHub workflows) that this machine does not have, as dpkg knows them. Without dpkg (not a Debian
 * machine), or when nothing is named, the list is empty.
 */

const WORKFLOW = /^\.github\/workflows\/[^/]+\.ya?ml$/;
const INSTALL = /\bapt(?:-get)?\s+(?:(?:-\S+|--\S+)\s+)*install\b([^\n;&|#]*)/g;
const NAME = /^[a-z0-9][a-z0-9+.-]*(?::[a-z0-9]+)?$/;

/** Package names in the apt install lines of the workflow texts (flags, variables and version pins dropped). */
export function aptPackagesOf(texts: readonly string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) {
    // Continued lines (`\` at the end) are one command.
    const joined = text.replace(/\\\r?\n/g, ' ');
    for (const m of joined.matchAll(INSTALL)) {
      for (const word of (m[1] ?? '').trim().split(/\s+/)) {
        const name = word.replace(/^['"]|['"]$/g, '').split('=')[0] ?? '';
        if (word.startsWith('-') || !NAME.test(name)) continue;
        names.add(name);
      }
    }
  }
  return [...names].sort();
}

function dpkgMissing(names: string[]): Promise<string[]> {
  return new Promise((resolve) => {
    execFile('dpkg-query', ['-W', '-f=${Package} ${db:Status-Status}\n', ...names], { timeout: 10_000 }, (err, stdout) => {
      if (err && !stdout) {
        // No dpkg here, or none of the packages is known to it: only the second says they are missing.
        resolve((err as NodeJS.ErrnoException).code === 'ENOENT' ? [] : names);
        return;
      }
      const installed = new Set(
        stdout
          .split('\n')
          .map((l) => l.trim().split(' '))
          .filter(([, status]) => status === 'installed')
          .map(([name]) => (name ?? '').split(':')[0]),
      );
      resolve(names.filter((n) => !installed.has(n.split(':')[0] ?? n)));
    });
  });
}

export async function missingSystemPackages(base: Revision): Promise<string[]> {
  const paths = (await base.paths()).filter((p) => WORKFLOW.test(p));
  if (paths.length === 0) return [];
  const texts = await base.readTexts(paths);
  const names = aptPackagesOf([...texts.values()]);
  return names.length ? dpkgMissing(names.slice(0, 50)) : [];
}
