import type { ManifestInfo } from '../fingerprint-types.js';

const GEM = /^\s*gem\s*\(?\s*(['"])([^'"]+)\1/;
const GEMSPEC = /\.add_(?:runtime_|development_)?dependency\s*\(?\s*(['"])([^'"]+)\1/;

/** Gemfile (`gem 'name', …`) and *.gemspec (`spec.add_dependency 'name'` and its variants). */
export function parseGemfile(_path: string, text: string): ManifestInfo {
  const deps = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const m = GEM.exec(line) ?? GEMSPEC.exec(line);
    if (m) deps.add(m[2]!.trim().toLowerCase());
  }
  return { ecosystem: 'ruby', deps: [...deps] };
}
