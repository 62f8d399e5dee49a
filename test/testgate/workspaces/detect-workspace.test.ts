import { describe, expect, it } from 'vitest';
import { Revision } from '../../../src/core/revision.js';
import { affectedPackages } from '../../../src/testgate/workspaces/affected-packages.js';
import { detectWorkspace } from '../../../src/testgate/workspaces/detect-workspace.js';
import { TestRepo, type FileContent } from '../../helpers/git-repo.js';

async function workspaceOf(files: Record<string, FileContent>) {
  const repo = TestRepo.create().write(files);
  const sha = repo.commit('base');
  return detectWorkspace(new Revision(repo.dir, sha));
}

const graph = (ws: Awaited<ReturnType<typeof workspaceOf>>) => Object.fromEntries((ws?.packages ?? []).map((p) => [p.dir, p.dependsOn]));

describe('workspace detection', () => {
  it('pnpm-workspace.yaml with workspace:* dependencies; node_modules and negated globs are not packages', async () => {
    const ws = await workspaceOf({
      'package.json': '{ "name": "root", "private": true }',
      'pnpm-workspace.yaml': "packages:\n  - 'apps/*'\n  - 'libs/*'\n  - '!libs/old'\n",
      'apps/web/package.json': '{ "name": "web", "dependencies": { "ui": "workspace:*" } }',
      'libs/ui/package.json': '{ "name": "ui", "devDependencies": { "tokens": "workspace:^" } }',
      'libs/tokens/package.json': '{ "name": "tokens" }',
      'libs/old/package.json': '{ "name": "old" }',
      'libs/ui/node_modules/x/package.json': '{ "name": "x" }',
    });
    expect(ws?.kind).toBe('pnpm');
    expect(graph(ws)).toEqual({ 'apps/web': ['libs/ui'], 'libs/tokens': [], 'libs/ui': ['libs/tokens'] });
    // tokens changed: ui depends on it, web on ui (transitively).
    const hit = affectedPackages(ws!, ['libs/tokens/index.js']);
    expect(hit.packages.map((p) => [p.pkg.dir, p.reason, p.via])).toEqual([
      ['apps/web', 'dependent', ['libs/tokens']],
      ['libs/tokens', 'changed', undefined],
      ['libs/ui', 'dependent', ['libs/tokens']],
    ]);
  });

  it('nested Go modules without go.work, linked by require and by a local replace', async () => {
    const ws = await workspaceOf({
      'go.mod': 'module example.com/root\n\ngo 1.21\n\nrequire example.com/root/sub v0.0.0\n',
      'sub/go.mod': 'module example.com/root/sub\n\ngo 1.21\n',
      'tools/go.mod': 'module example.com/tools\n\ngo 1.21\n\nreplace example.com/x => ../sub\n',
      'vendor/foo/go.mod': 'module foo\n',
    });
    expect(ws?.kind).toBe('go');
    expect(graph(ws)).toEqual({ '.': ['sub'], sub: [], tools: ['sub'] });
    // A file of the root module outside the nested ones belongs to the root module.
    expect(affectedPackages(ws!, ['main.go']).packages.map((p) => p.pkg.dir)).toEqual(['.']);
  });

  it('a cargo workspace with [workspace.dependencies] path entries and exclude', async () => {
    const ws = await workspaceOf({
      'Cargo.toml':
        '[workspace]\nmembers = ["crates/*"]\nexclude = ["crates/scratch"]\n\n[workspace.dependencies]\nbase = { path = "crates/base" }\n',
      'crates/base/Cargo.toml': '[package]\nname = "base"\n',
      'crates/app/Cargo.toml':
        '[package]\nname = "app"\n\n[dependencies]\nbase.workspace = true\n\n[target.\'cfg(unix)\'.dev-dependencies]\nextra = { path = "../extra" }\n',
      'crates/extra/Cargo.toml': '[package]\nname = "extra"\n',
      'crates/scratch/Cargo.toml': '[package]\nname = "scratch"\n',
    });
    expect(graph(ws)).toEqual({ 'crates/app': ['crates/base', 'crates/extra'], 'crates/base': [], 'crates/extra': [] });
  });

  it('a uv workspace: members and the root project, linked by requirement names (PEP 503)', async () => {
    const ws = await workspaceOf({
      'pyproject.toml': '[project]\nname = "suite"\ndependencies = ["Acme_Core>=1"]\n\n[tool.uv.workspace]\nmembers = ["packages/*"]\n',
      'packages/core/pyproject.toml': '[project]\nname = "acme-core"\n',
      'packages/cli/pyproject.toml': '[project]\nname = "acme-cli"\n\n[dependency-groups]\ndev = ["acme.core"]\n',
    });
    expect(ws?.source).toBe('pyproject.toml [tool.uv.workspace]');
    expect(graph(ws)).toEqual({ '.': ['packages/core'], 'packages/cli': ['packages/core'], 'packages/core': [] });
  });

  it('a single project with a nested pyproject (a fixture) is no workspace', async () => {
    expect(
      await workspaceOf({ 'pyproject.toml': '[project]\nname = "app"\n', 'tests/fixtures/proj/pyproject.toml': '[project]\nname = "f"\n' }),
    ).toBeNull();
    expect(
      await workspaceOf({ 'package.json': '{ "name": "app", "workspaces": ["packages/*"] }', 'packages/only/package.json': '{}' }),
    ).toBeNull();
  });
});
