import { XMLParser } from 'fast-xml-parser';
import type { ManifestInfo } from '../fingerprint-types.js';
import { dig, isTable, readToml } from './toml-read.js';

const xml = new XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (name) => name === 'dependency' });

function coordinate(group: unknown, artifact: unknown): string | null {
  if (typeof artifact !== 'string' || !artifact.trim()) return null;
  const g = typeof group === 'string' ? group.trim() : '';
  return `${g ? `${g}:` : ''}${artifact.trim()}`.toLowerCase();
}

function addDependencies(into: Set<string>, list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const dep of list) {
    const c = isTable(dep) ? coordinate(dep.groupId, dep.artifactId) : null;
    if (c) into.add(c);
  }
}

/**
 * pom.xml: `<dependencies>` of the project and of `<dependencyManagement>` (and of every profile) as
 * `groupId:artifactId`. A file that is not XML contributes nothing.
 */
export function parsePomXml(_path: string, text: string): ManifestInfo {
  const deps = new Set<string>();
  let doc: unknown;
  try {
    doc = xml.parse(text);
  } catch {
    return { ecosystem: 'java', deps: [] };
  }
  const project = dig(doc, 'project');
  addDependencies(deps, dig(project, 'dependencies', 'dependency'));
  addDependencies(deps, dig(project, 'dependencyManagement', 'dependencies', 'dependency'));
  const profiles = dig(project, 'profiles', 'profile');
  for (const profile of Array.isArray(profiles) ? profiles : [profiles]) {
    addDependencies(deps, dig(profile, 'dependencies', 'dependency'));
  }
  return { ecosystem: 'java', deps: [...deps] };
}

const CONFIGURATION = '(?:\\w*(?:[Ii]mplementation|[Aa]pi|[Cc]ompile|[Rr]untime|Only|[Cc]lasspath|kapt|ksp|[Aa]nnotationProcessor))';
const GRADLE_STRING = new RegExp(`\\b${CONFIGURATION}\\s*\\(?\\s*(?:platform\\s*\\(\\s*)?['"]([\\w.-]+):([\\w.-]+)(?::[^'"]*)?['"]`, 'g');
const GRADLE_MAP = new RegExp(
  `\\b${CONFIGURATION}\\s*\\(?\\s*group\\s*[:=]\\s*['"]([\\w.-]+)['"]\\s*,\\s*name\\s*[:=]\\s*['"]([\\w.-]+)['"]`,
  'g',
);

/** build.gradle / build.gradle.kts: `implementation 'g:a:v'`, `implementation("g:a:v")`, `group: 'g', name: 'a'` maps. */
export function parseGradle(_path: string, text: string): ManifestInfo {
  const deps = new Set<string>();
  for (const re of [GRADLE_STRING, GRADLE_MAP]) {
    for (const m of text.matchAll(re)) deps.add(`${m[1]}:${m[2]}`.toLowerCase());
  }
  return { ecosystem: 'java', deps: [...deps] };
}

/** gradle/libs.versions.toml: `[libraries]` entries (`module = "g:a"` or `group` + `name`). */
export function parseVersionCatalog(_path: string, text: string): ManifestInfo {
  const deps = new Set<string>();
  const libraries = dig(readToml(text), 'libraries');
  if (isTable(libraries)) {
    for (const spec of Object.values(libraries)) {
      if (typeof spec === 'string') {
        const [g, a] = spec.split(':');
        if (g && a) deps.add(`${g}:${a}`.toLowerCase());
      } else if (isTable(spec)) {
        const module =
          typeof spec.module === 'string'
            ? spec.module
            : `${typeof spec.group === 'string' ? spec.group : ''}:${typeof spec.name === 'string' ? spec.name : ''}`;
        const [g, a] = module.split(':');
        if (g && a) deps.add(`${g}:${a}`.toLowerCase());
      }
    }
  }
  return { ecosystem: 'java', deps: [...deps] };
}
