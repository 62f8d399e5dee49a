import type { Revision } from '../../core/revision.js';
import { cargoWorkspace } from './cargo-workspace.js';
import { goWorkspace } from './go-workspace.js';
import { npmWorkspace } from './npm-workspace.js';
import { pythonWorkspace } from './python-workspace.js';
import type { Workspace } from './workspace-types.js';

/**
 * The workspace of a monorepo as its own tooling declares it, read from the BASE tree (a pull request
 * cannot change how it is split): npm/pnpm/yarn workspaces, a cargo workspace, go.work or nested Go
 * modules, Python subprojects. The first of these with at least two packages wins; a repository with
 * several kinds is split by the first one only.
 */
export async function detectWorkspace(rev: Revision): Promise<Workspace | null> {
  for (const read of [npmWorkspace, cargoWorkspace, goWorkspace, pythonWorkspace]) {
    const ws = await read(rev);
    if (ws && ws.packages.length >= 2) return ws;
  }
  return null;
}
