import { readFileSync } from 'node:fs';
import { isRecord } from './is-record.js';

function readVersion(): string {
  for (const rel of ['../../package.json', '../package.json']) {
    try {
      // Two fields checked by hand, not with zod: `slopgate --version` loads this module and nothing heavier.
      const pkg: unknown = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8'));
      if (isRecord(pkg) && pkg.name === 'slopgate' && typeof pkg.version === 'string' && pkg.version) return pkg.version;
    } catch {
      // try the next location (src/ and dist/ sit at different depths)
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
