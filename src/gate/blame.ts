import type { Finding } from '../core/finding.js';
import { attributeLines, isAddedLine, type PatchSet } from '../core/patch-set.js';

/** At most this many files are blamed per run (one `git blame` each). */
const MAX_BLAMED_FILES = 200;

/** Attributes findings on added lines to the PR commit that last touched the line. */
export async function attributeCommits(patch: PatchSet, findings: Finding[]): Promise<void> {
  const byPath = new Map<string, { finding: Finding; line: number }[]>();
  const files = new Map(patch.files.map((f) => [f.path, f]));
  for (const f of findings) {
    if (!f.path || !f.line || f.commit) continue;
    const file = files.get(f.path);
    if (!file || !isAddedLine(file, f.line)) continue;
    if (patch.commits.length === 1) {
      f.commit = patch.commits[0];
      continue;
    }
    const list = byPath.get(f.path) ?? [];
    list.push({ finding: f, line: f.line });
    byPath.set(f.path, list);
  }
  const entries = [...byPath].slice(0, MAX_BLAMED_FILES);
  await Promise.all(
    entries.map(async ([path, list]) => {
      const commits = await attributeLines(
        patch,
        path,
        list.map((e) => e.line),
      );
      for (const { finding, line } of list) {
        const c = commits.get(line);
        if (c) finding.commit = c;
      }
    }),
  );
}
