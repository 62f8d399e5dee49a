import { git, readBlobs } from './git.js';
import { decodeText } from './text-content.js';
import { DEFAULT_MAX_TEXT_BYTES } from './patch-set.js';

export interface TreeEntry {
  mode: string;
  oid: string;
}

/**
 * Read-only view of one commit's tree: list paths and read files without a checkout.
 * The tree listing is loaded once and cached; file reads go through `git cat-file --batch`.
 */
export class Revision {
  private tree: Promise<Map<string, TreeEntry>> | null = null;
  private readonly texts = new Map<string, Promise<string | null>>();

  constructor(
    readonly repoDir: string,
    readonly sha: string,
    private readonly maxBytes = DEFAULT_MAX_TEXT_BYTES,
    /** The commit's tree id when the caller knows it already (the patch set does): no git process to ask. */
    private readonly knownTree?: string,
  ) {}

  /** The id of the commit's tree. */
  async treeId(): Promise<string> {
    return this.knownTree ?? (await git(this.repoDir, ['rev-parse', `${this.sha}^{tree}`])).trim();
  }

  entries(): Promise<Map<string, TreeEntry>> {
    this.tree ??= git(this.repoDir, ['ls-tree', '-r', '-z', '--full-tree', this.sha]).then((out) => {
      const map = new Map<string, TreeEntry>();
      for (const rec of out.split('\0')) {
        if (!rec) continue;
        const tab = rec.indexOf('\t');
        const [mode, type, oid] = rec.slice(0, tab).split(' ');
        if ((type !== 'blob' && type !== 'commit') || mode === undefined || oid === undefined) continue;
        map.set(rec.slice(tab + 1), { mode, oid });
      }
      return map;
    });
    return this.tree;
  }

  async paths(): Promise<string[]> {
    return [...(await this.entries()).keys()];
  }

  async has(path: string): Promise<boolean> {
    return (await this.entries()).has(path);
  }

  /** True when `dir` is a directory in this tree (some path lives under it). */
  async hasDir(dir: string): Promise<boolean> {
    const prefix = dir.replace(/\/+$/, '') + '/';
    if (prefix === '/') return true;
    for (const p of (await this.entries()).keys()) if (p.startsWith(prefix)) return true;
    return false;
  }

  /** Text of a regular file, or null when it is absent, binary, too large or not UTF-8. */
  readText(path: string): Promise<string | null> {
    let cached = this.texts.get(path);
    if (!cached) {
      cached = this.load(path);
      this.texts.set(path, cached);
    }
    return cached;
  }

  /** Reads many files with one git process; returns only the ones that are text. */
  async readTexts(paths: string[]): Promise<Map<string, string>> {
    const entries = await this.entries();
    const wanted: [string, TreeEntry][] = [];
    for (const p of paths) {
      const entry = entries.get(p);
      if (entry?.mode.startsWith('100')) wanted.push([p, entry]);
    }
    const blobs = await readBlobs(
      this.repoDir,
      wanted.map(([, e]) => e.oid),
      this.maxBytes,
    );
    const out = new Map<string, string>();
    for (const [p, entry] of wanted) {
      const content = blobs.get(entry.oid)?.content;
      if (!content) continue;
      const decoded = decodeText(content);
      if ('text' in decoded) {
        out.set(p, decoded.text);
        this.texts.set(p, Promise.resolve(decoded.text));
      }
    }
    return out;
  }

  private async load(path: string): Promise<string | null> {
    const entry = (await this.entries()).get(path);
    if (!entry?.mode.startsWith('100')) return null;
    const blob = (await readBlobs(this.repoDir, [entry.oid], this.maxBytes)).get(entry.oid);
    if (!blob?.content) return null;
    const decoded = decodeText(blob.content);
    return 'text' in decoded ? decoded.text : null;
  }
}
