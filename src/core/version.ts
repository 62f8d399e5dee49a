import { readFileSync } from 'node:fs';

function readVersion(): string {
  for (const rel of ['../../package.json', '../package.json']) {
    try {
      // cast: I/O boundary: parsed from a file or a tool's output
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'slopgate' && pkg.version) return pkg.version;
    } catch {
      // try the next location (src/ and dist/ sit at different depths)
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
