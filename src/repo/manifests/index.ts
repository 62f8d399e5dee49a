import { posix } from 'node:path';
import type { ManifestInfo } from '../fingerprint-types.js';
import { parsePackageJson } from './npm.js';
import { parsePipfile, parsePyproject, parseSetupCfg, parseSetupPy } from './python.js';
import { parseRequirements } from './requirements.js';
import { parseGoMod } from './go.js';
import { parseCargoToml } from './rust.js';
import { parseGemfile } from './ruby.js';
import { parseComposerJson } from './php.js';
import { parseGradle, parsePomXml, parseVersionCatalog } from './java.js';

export type ManifestParser = (path: string, text: string) => ManifestInfo;

/** Folders whose contents are someone else's code or build output: never read for manifests. */
export const SKIPPED_DIRS = new Set([
  'node_modules',
  'vendor',
  '.venv',
  'venv',
  'target',
  'dist',
  'build',
  'third_party',
  '.git',
  'bower_components',
  '__pycache__',
  '.tox',
  '.nox',
  'site-packages',
]);

/** True when some folder on the path is a vendored/build folder. */
export function isSkippedPath(path: string): boolean {
  const parts = path.split('/');
  for (let i = 0; i < parts.length - 1; i++) if (SKIPPED_DIRS.has(parts[i]!)) return true;
  return false;
}

const BY_BASENAME: Record<string, ManifestParser> = {
  'package.json': parsePackageJson,
  'pyproject.toml': parsePyproject,
  'setup.cfg': parseSetupCfg,
  'setup.py': parseSetupPy,
  Pipfile: parsePipfile,
  'go.mod': parseGoMod,
  'Cargo.toml': parseCargoToml,
  Gemfile: parseGemfile,
  'composer.json': parseComposerJson,
  'pom.xml': parsePomXml,
  'build.gradle': parseGradle,
  'build.gradle.kts': parseGradle,
  'libs.versions.toml': parseVersionCatalog,
};

/** The parser for a manifest path, or null when the path is not a manifest slopgate reads. */
export function manifestParserFor(path: string): ManifestParser | null {
  if (isSkippedPath(path)) return null;
  const base = posix.basename(path);
  const direct = BY_BASENAME[base];
  if (direct) return direct;
  if (/^requirements.*\.(txt|in)$/i.test(base)) return parseRequirements;
  // requirements/base.txt, requirements/dev.txt …
  if (/\.(txt|in)$/i.test(base) && posix.basename(posix.dirname(path)).toLowerCase() === 'requirements') return parseRequirements;
  if (base.endsWith('.gemspec')) return parseGemfile;
  return null;
}
