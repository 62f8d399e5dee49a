import { parse as parseToml } from 'smol-toml';
import { isRecord } from '../../core/is-record.js';
import { pep503, requirementName } from '../../repo/manifests/python-names.js';

/**
 * Which locked package depends on a distribution, read from a Python lockfile's dependency graph
 * (uv.lock, poetry.lock, pdm.lock). A distribution the manifest no longer declares is still installed
 * when another locked package requires it: the import keeps working by accident. The project's own
 * entries (`own`, and uv's editable or virtual sources) are not providers: they are what lost the
 * declaration.
 */

/** The names one locked package depends on (PEP 503), whatever the lockfile's spelling. */
function dependencyNames(pkg: Record<string, unknown>): string[] {
  const deps = pkg.dependencies;
  if (Array.isArray(deps)) {
    // uv: [{ name = "anyio" }, …]; pdm: ["anyio>=3", …]
    return deps.flatMap((d) => {
      if (typeof d === 'string') return requirementName(d) ?? [];
      return isRecord(d) && typeof d.name === 'string' ? [pep503(d.name)] : [];
    });
  }
  // poetry: [package.dependencies] anyio = ">=3"
  return isRecord(deps) ? Object.keys(deps).map(pep503) : [];
}

function isOwnEntry(pkg: Record<string, unknown>, own: ReadonlySet<string>): boolean {
  if (typeof pkg.name === 'string' && own.has(pep503(pkg.name))) return true;
  const source = pkg.source;
  return isRecord(source) && ('editable' in source || 'virtual' in source);
}

/** The first locked package (not the project itself) that requires `dist`, or null; null too when the text does not parse. */
export function lockedDependent(lockText: string, dist: string, own: ReadonlySet<string>): string | null {
  let doc: unknown;
  try {
    doc = parseToml(lockText);
  } catch {
    return null;
  }
  const packages = isRecord(doc) && Array.isArray(doc.package) ? doc.package : [];
  for (const pkg of packages) {
    if (!isRecord(pkg) || typeof pkg.name !== 'string' || isOwnEntry(pkg, own)) continue;
    if (dependencyNames(pkg).includes(dist)) return pkg.name;
  }
  return null;
}
