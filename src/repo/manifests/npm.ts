import { parse as parseJsonc } from 'jsonc-parser';
import type { ManifestInfo } from '../fingerprint-types.js';
import { isRecord } from '../../core/is-record.js';

const DEP_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

/**
 * package.json: the four dependency tables (names lower-cased) plus the package's own name, which
 * is a local package (workspaces are package.json files too, so every workspace contributes its name).
 * Bundled-dependency arrays and `workspaces` globs need no reading: the member manifests are found
 * by the tree walk.
 */
export function parsePackageJson(_path: string, text: string): ManifestInfo {
  const json: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  const deps = new Set<string>();
  const local: string[] = [];
  if (isRecord(json)) {
    for (const field of DEP_FIELDS) {
      const table = json[field];
      if (isRecord(table)) for (const name of Object.keys(table)) deps.add(name.toLowerCase());
    }
    if (typeof json.name === 'string' && json.name.trim()) local.push(json.name.trim().toLowerCase());
  }
  return { ecosystem: 'npm', deps: [...deps], localPackages: local };
}
