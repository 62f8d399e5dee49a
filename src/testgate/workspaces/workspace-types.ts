/** The package-manager or build-tool family a workspace was read from. */
export type WorkspaceKind = 'npm' | 'pnpm' | 'yarn' | 'go' | 'cargo' | 'python';

/** One package (member, module, crate, subproject) of a monorepo. */
export interface WorkspacePackage {
  /** Its own name (package.json `name`, Go module path, crate name, Python project name); the folder when it has none. */
  name: string;
  /** Repo-relative folder, without a trailing slash; `.` for a package at the repository root. */
  dir: string;
  /** Repo-relative path of its manifest (package.json, go.mod, Cargo.toml, pyproject.toml). */
  manifest: string;
  /** Folders of the other packages of the workspace it depends on, as its manifest declares them. */
  dependsOn: string[];
}

export interface Workspace {
  kind: WorkspaceKind;
  /** Where the packages were listed (`package.json workspaces`, `go.work`, `Cargo.toml [workspace]`, …). */
  source: string;
  packages: WorkspacePackage[];
}

/** Folders never searched for packages: installed dependencies, build output, virtualenvs, fixtures of tools. */
export const NOT_A_PACKAGE = /(^|\/)(node_modules|vendor|target|dist|build|\.venv|venv|\.tox|\.git|testdata|__pycache__)\//;

export function dirOf(manifest: string): string {
  const i = manifest.lastIndexOf('/');
  return i < 0 ? '.' : manifest.slice(0, i);
}
