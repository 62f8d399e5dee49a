import { parse as parseJsonc } from 'jsonc-parser';
import type { ManifestInfo } from '../fingerprint-types.js';
import { isRecord } from '../../core/is-record.js';

/** composer.json: `require` and `require-dev` package names; the `php` and `ext-*` platform entries are not packages. */
export function parseComposerJson(_path: string, text: string): ManifestInfo {
  const json: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  const deps = new Set<string>();
  if (isRecord(json)) {
    for (const field of ['require', 'require-dev']) {
      const table = json[field];
      if (!isRecord(table)) continue;
      for (const name of Object.keys(table)) {
        const lower = name.toLowerCase();
        if (lower === 'php' || lower.startsWith('ext-') || lower.startsWith('lib-')) continue;
        deps.add(lower);
      }
    }
  }
  return { ecosystem: 'php', deps: [...deps] };
}
