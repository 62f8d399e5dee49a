/** Inclusive, 1-based line range. */
export interface LineRange {
  start: number;
  end: number;
}

export interface FileHunks {
  oldPath: string | null;
  newPath: string | null;
  added: LineRange[];
  removed: LineRange[];
}

/** Undoes git's C-style quoting of unusual path names ("a\tb" → a<TAB>b, octal escapes for bytes). */
export function unquoteGitPath(raw: string): string {
  if (!raw.startsWith('"')) return raw;
  const body = raw.slice(1, raw.endsWith('"') ? -1 : undefined);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const next = body[++i] ?? '';
    if (/[0-7]/.test(next)) {
      const oct = body.slice(i, i + 3);
      bytes.push(parseInt(oct, 8));
      i += 2;
      continue;
    }
    const map: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 };
    bytes.push(map[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

function stripPrefix(p: string): string | null {
  const path = unquoteGitPath(p.trim());
  if (path === '/dev/null') return null;
  return path.replace(/^[ab]\//, '');
}

/**
 * Parses `git diff -U0 --src-prefix=a/ --dst-prefix=b/` output into added (new-side) and removed
 * (old-side) line ranges per file. Files without text hunks (binary, pure renames) are absent.
 */
export function parseUnifiedZeroDiff(diff: string): FileHunks[] {
  const files: FileHunks[] = [];
  let current: FileHunks | null = null;
  const lines = diff.split('\n');
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      current = { oldPath: null, newPath: null, added: [], removed: [] };
      files.push(current);
      continue;
    }
    if (!current) continue;
    if (line.startsWith('--- ') && current.added.length === 0 && current.removed.length === 0) {
      current.oldPath = stripPrefix(line.slice(4));
      continue;
    }
    if (line.startsWith('+++ ') && current.added.length === 0 && current.removed.length === 0) {
      current.newPath = stripPrefix(line.slice(4));
      continue;
    }
    if (line.startsWith('@@ ')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!m) continue;
      const oldStart = Number(m[1]);
      const oldCount = m[2] === undefined ? 1 : Number(m[2]);
      const newStart = Number(m[3]);
      const newCount = m[4] === undefined ? 1 : Number(m[4]);
      if (oldCount > 0) current.removed.push({ start: oldStart, end: oldStart + oldCount - 1 });
      if (newCount > 0) current.added.push({ start: newStart, end: newStart + newCount - 1 });
    }
  }
  return files.filter((f) => f.oldPath !== null || f.newPath !== null);
}

export function inRanges(ranges: readonly LineRange[], line: number): boolean {
  for (const r of ranges) if (line >= r.start && line <= r.end) return true;
  return false;
}
