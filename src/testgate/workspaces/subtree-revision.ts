import { Revision, type TreeEntry } from '../../core/revision.js';

/**
 * One folder of a commit's tree seen as if it were the repository root: `packages/b/package.json`
 * reads as `package.json`. Lets the runner detection, which reads a tree from its root, pick the
 * runner of one workspace package.
 */
export class SubtreeRevision extends Revision {
  private scoped: Promise<Map<string, TreeEntry>> | null = null;

  constructor(
    private readonly whole: Revision,
    readonly dir: string,
  ) {
    super(whole.repoDir, whole.sha);
  }

  override entries(): Promise<Map<string, TreeEntry>> {
    const prefix = `${this.dir}/`;
    this.scoped ??= this.whole.entries().then((all) => {
      const map = new Map<string, TreeEntry>();
      for (const [p, e] of all) if (p.startsWith(prefix)) map.set(p.slice(prefix.length), e);
      return map;
    });
    return this.scoped;
  }
}
