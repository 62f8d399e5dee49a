import { languageOf, type LangId } from '../../repo/languages.js';

/** How G2 parses a file. `json-or-yaml`: extensionless rc files that tools accept in either syntax. */
export type ConfigKind = 'toml' | 'json' | 'jsonc' | 'yaml' | 'json-or-yaml';
/** Files read by a parser of their own: shell scripts (`bash -n`), go.mod and go.work (`go-mod-syntax.ts`). */
export type ToolKind = 'shell' | 'go-mod' | 'go-work';
export type SyntaxKind = { kind: ConfigKind } | { kind: ToolKind } | { kind: 'code'; lang: LangId };

/** Basenames (lower-cased) of JSON files whose tools accept comments and trailing commas. */
const JSONC_BASENAMES = new Set([
  '.eslintrc.json',
  '.babelrc',
  '.babelrc.json',
  'babel.config.json',
  '.swcrc',
  'deno.json',
  'deno.jsonc',
  'turbo.json',
  'tslint.json',
  '.jshintrc',
  '.jscsrc',
  'biome.json',
  'biome.jsonc',
  '.oxlintrc.json',
  'devcontainer.json',
  '.devcontainer.json',
  'api-extractor.json',
  'tsdoc.json',
  'typedoc.json',
  '.markdownlint.json',
  '.markdownlintrc',
  'language-configuration.json',
  'wrangler.json',
  'nx.json',
  'project.json',
  '.mocharc.json',
]);

/** Extensionless rc files that may be written in JSON (with comments) or YAML. */
const JSON_OR_YAML_BASENAMES = new Set(['.eslintrc', '.prettierrc', '.stylelintrc', '.lintstagedrc', '.mocharc', '.releaserc']);

/** TOML files without a `.toml` extension. */
const TOML_BASENAMES = new Set(['pipfile', 'cargo.lock', 'poetry.lock', 'uv.lock', 'pdm.lock']);

/** Directories (any depth) whose `.json` files are JSONC: editor and dev-container settings. */
const JSONC_DIRS = new Set(['.vscode', '.devcontainer', '.zed', '.theia']);

function jsonKind(segs: string[], base: string): ConfigKind {
  if (JSONC_BASENAMES.has(base)) return 'jsonc';
  if (/^(tsconfig|jsconfig)([.-].*)?\.json$/.test(base)) return 'jsonc';
  if (segs.slice(0, -1).some((d) => JSONC_DIRS.has(d))) return 'jsonc';
  return 'json';
}

/** Which parser G2 uses for `path`, or null when G2 does not check this kind of file. */
export function syntaxKindOf(path: string): SyntaxKind | null {
  const segs = path.toLowerCase().split('/');
  const base = segs.at(-1) ?? '';
  if (base.endsWith('.toml') || TOML_BASENAMES.has(base)) return { kind: 'toml' };
  if (base.endsWith('.jsonc') || base.endsWith('.code-workspace')) return { kind: 'jsonc' };
  if (base.endsWith('.json') || JSONC_BASENAMES.has(base)) return { kind: jsonKind(segs, base) };
  if (base.endsWith('.yml') || base.endsWith('.yaml')) return { kind: 'yaml' };
  if (JSON_OR_YAML_BASENAMES.has(base)) return { kind: 'json-or-yaml' };
  if (base === 'go.mod') return { kind: 'go-mod' };
  if (base === 'go.work') return { kind: 'go-work' };
  if (base.endsWith('.sh') || base.endsWith('.bash')) return { kind: 'shell' };
  const lang = languageOf(path);
  return lang ? { kind: 'code', lang } : null;
}

/** Human name of a kind, for messages ("TOML", "JSON with comments", "TypeScript (TSX)"). */
export function kindLabel(k: SyntaxKind): string {
  switch (k.kind) {
    case 'toml':
      return 'TOML';
    case 'json':
      return 'JSON';
    case 'jsonc':
      return 'JSON with comments';
    case 'yaml':
      return 'YAML';
    case 'json-or-yaml':
      return 'JSON or YAML';
    case 'shell':
      return 'a shell script (bash)';
    case 'go-mod':
      return 'go.mod';
    case 'go-work':
      return 'go.work';
    case 'code':
      return LANG_LABEL[k.lang];
  }
}

const LANG_LABEL: Record<LangId, string> = {
  python: 'Python',
  javascript: 'JavaScript',
  typescript: 'TypeScript',
  tsx: 'TypeScript (TSX)',
  go: 'Go',
  rust: 'Rust',
  java: 'Java',
};
