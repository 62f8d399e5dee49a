import { posix } from 'node:path';
import type { ManifestInfo } from '../fingerprint-types.js';
import { pep503, requirementName } from './python-names.js';
import { resolveRepoPath } from './repo-path.js';

/** `#egg=name` in a URL or VCS requirement. */
const EGG = /[#&]egg=([A-Za-z0-9][A-Za-z0-9._-]*)/;
/** An archive file name `name-1.2.3.tar.gz` / wheel `name-1.2-py3-none-any.whl` at the end of a URL. */
const ARCHIVE = /\/([A-Za-z0-9][A-Za-z0-9._]*?)-\d[^/]*\.(?:tar\.gz|zip|whl|tar\.bz2)$/;

function logicalLines(text: string): string[] {
  // Backslash at end of line continues the requirement (pip's rule).
  return text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
}

function stripComment(line: string): string {
  // pip: a `#` starts a comment when at the line start or preceded by whitespace (`#egg=` survives).
  return line.replace(/(^|\s)#.*$/, '').trim();
}

function nameFromUrl(url: string): string | null {
  const egg = EGG.exec(url);
  if (egg) return pep503(egg[1]!);
  const archive = ARCHIVE.exec(url.split(/[?#]/)[0]!);
  return archive ? pep503(archive[1]!) : null;
}

/**
 * requirements*.txt: one PEP 508 requirement a line, with pip's extras: extras and environment
 * markers, `name @ url`, `-e`/`--editable` (VCS URL with `#egg=` or a local path), bare URLs,
 * `-r`/`--requirement` includes (followed by the fingerprint), comments and line continuations.
 * Constraint files (`-c`) and index options declare nothing.
 */
export function parseRequirements(path: string, text: string): ManifestInfo {
  const deps = new Set<string>();
  const includes: string[] = [];
  const dir = posix.dirname(path);
  for (const raw of logicalLines(text)) {
    const line = stripComment(raw);
    if (!line) continue;
    const include = /^(?:-r|--requirement)(?:\s+|=)(\S+)/.exec(line);
    if (include) {
      const target = resolveRepoPath(dir, include[1]!);
      if (target) includes.push(target);
      continue;
    }
    const editable = /^(?:-e|--editable)(?:\s+|=)(\S+)/.exec(line);
    if (editable) {
      const name = nameFromUrl(editable[1]!);
      if (name) deps.add(name);
      continue;
    }
    if (line.startsWith('-')) continue; // -c, -i, --index-url, --hash, -f …
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(line) || line.startsWith('.') || line.startsWith('/')) {
      const name = nameFromUrl(line);
      if (name) deps.add(name);
      continue;
    }
    const name = requirementName(line);
    if (name) deps.add(name);
  }
  return { ecosystem: 'python', deps: [...deps], includes };
}
