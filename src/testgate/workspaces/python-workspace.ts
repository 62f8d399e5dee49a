import picomatch from 'picomatch';
import type { Revision } from '../../core/revision.js';
import { pep503, requirementName } from '../../repo/manifests/python-names.js';
import { dig, isTable, keysOf, readToml, stringsOf, type Table } from '../../repo/manifests/toml-read.js';
import { dirOf, NOT_A_PACKAGE, type Workspace, type WorkspacePackage } from './workspace-types.js';

/** Distribution names a pyproject.toml depends on (PEP 621, optional and group dependencies, Poetry). */
function requirementNames(toml: Table): string[] {
  const specs = [
    ...stringsOf(dig(toml, 'project', 'dependencies')),
    ...Object.values(
      isTable(dig(toml, 'project', 'optional-dependencies')) ? (dig(toml, 'project', 'optional-dependencies') as Table) : {},
    ).flatMap(stringsOf),
    ...Object.values(isTable(toml['dependency-groups']) ? toml['dependency-groups'] : {}).flatMap(stringsOf),
  ];
  const poetry = [
    ...keysOf(dig(toml, 'tool', 'poetry', 'dependencies')),
    ...Object.values(isTable(dig(toml, 'tool', 'poetry', 'group')) ? (dig(toml, 'tool', 'poetry', 'group') as Table) : {}).flatMap((g) =>
      keysOf(dig(g, 'dependencies')),
    ),
  ];
  return [...specs.map(requirementName), ...poetry.map(pep503)].filter((n): n is string => n !== null);
}

function projectName(toml: Table, dir: string): string {
  const name = dig(toml, 'project', 'name') ?? dig(toml, 'tool', 'poetry', 'name');
  return typeof name === 'string' ? name : dir;
}

/**
 * Python subprojects, each with its own pyproject.toml: the members of a uv workspace
 * (`[tool.uv.workspace] members`), or, when the root is no Python project itself, every
 * pyproject.toml below it (at least two). One depends on another when it requires its name.
 */
export async function pythonWorkspace(rev: Revision): Promise<Workspace | null> {
  const paths = await rev.paths();
  const rootText = await rev.readText('pyproject.toml');
  const root = rootText === null ? null : readToml(rootText);
  const uvMembers = root ? stringsOf(dig(root, 'tool', 'uv', 'workspace', 'members')) : [];
  let manifests: string[];
  let source: string;
  if (uvMembers.length) {
    const exclude = stringsOf(dig(root, 'tool', 'uv', 'workspace', 'exclude'));
    const isMember = picomatch(
      uvMembers.map((g) => `${g.replace(/\/+$/, '')}/pyproject.toml`),
      {
        ignore: exclude.map((g) => `${g.replace(/\/+$/, '')}/pyproject.toml`),
      },
    );
    manifests = paths.filter((p) => p.endsWith('/pyproject.toml') && isMember(p));
    if (root && isTable(root.project)) manifests.push('pyproject.toml');
    source = 'pyproject.toml [tool.uv.workspace]';
  } else {
    if (rootText !== null || paths.includes('setup.py') || paths.includes('setup.cfg')) return null;
    manifests = paths.filter((p) => p.endsWith('/pyproject.toml') && !NOT_A_PACKAGE.test(p));
    source = 'pyproject.toml of each subproject';
  }
  manifests.sort();
  if (manifests.length < 2) return null;
  const projects = await Promise.all(
    manifests.map(async (m) => ({
      manifest: m,
      dir: dirOf(m),
      toml: m === 'pyproject.toml' && root ? root : readToml((await rev.readText(m)) ?? ''),
    })),
  );
  const dirByName = new Map(projects.map((p) => [pep503(projectName(p.toml, p.dir)), p.dir]));
  const packages: WorkspacePackage[] = projects.map(({ manifest, dir, toml }) => {
    const dependsOn = [...new Set(requirementNames(toml).map((n) => dirByName.get(n)))]
      .filter((d): d is string => d !== undefined && d !== dir)
      .sort();
    return { name: projectName(toml, dir), dir, manifest, dependsOn };
  });
  return { kind: 'python', source, packages };
}
