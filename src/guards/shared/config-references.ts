import type { Node } from 'web-tree-sitter';
import { withTree, type LangId } from '../../repo/languages.js';
import { isNodeBuiltin } from '../../repo/stdlib/node.js';

/**
 * The JS/TS config files whose package references G12 checks: the original's 47 basenames plus
 * the `.ts`/`.mts`/`.cts`/`.cjs`/`.mjs` variants the tools themselves load.
 */
const CONFIG_FILES: Record<string, string[]> = {
  'prettier.config': ['js', 'mjs', 'cjs', 'ts', 'mts', 'cts'],
  '.prettierrc': ['js', 'mjs', 'cjs', 'ts', 'mts', 'cts'],
  'eslint.config': ['js', 'mjs', 'cjs', 'ts', 'mts', 'cts'],
  '.eslintrc': ['js', 'cjs'],
  'tailwind.config': ['js', 'ts', 'cjs', 'mjs', 'mts', 'cts'],
  'vite.config': ['js', 'ts', 'mjs', 'cjs', 'mts', 'cts'],
  'vitest.config': ['js', 'ts', 'mjs', 'cjs', 'mts', 'cts'],
  'webpack.config': ['js', 'ts', 'mjs', 'cjs'],
  'rollup.config': ['js', 'mjs', 'ts', 'cjs', 'mts', 'cts'],
  'babel.config': ['js', 'cjs', 'mjs', 'cts'],
  '.babelrc': ['js', 'cjs', 'mjs', 'cts'],
  'jest.config': ['js', 'ts', 'mjs', 'cjs', 'mts', 'cts'],
  'playwright.config': ['ts', 'js', 'mts', 'mjs', 'cts', 'cjs'],
  'next.config': ['js', 'mjs', 'ts'],
  'nuxt.config': ['js', 'ts', 'mjs'],
  'astro.config': ['mjs', 'js', 'ts', 'mts', 'cjs', 'cts'],
  'svelte.config': ['js', 'mjs'],
  'postcss.config': ['js', 'cjs', 'mjs', 'ts', 'mts', 'cts'],
};

/** Which tool reads a config basename (decides the shorthand rules), or null when G12 does not read it. */
export type ConfigTool = 'prettier' | 'eslint' | 'eslintrc' | 'babel' | 'postcss' | 'other';

export function configToolOf(path: string): ConfigTool | null {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return null;
  const stem = base.slice(0, dot);
  if (!CONFIG_FILES[stem]?.includes(base.slice(dot + 1))) return null;
  if (stem.includes('prettier')) return 'prettier';
  if (stem === '.eslintrc') return 'eslintrc';
  if (stem.includes('eslint')) return 'eslint';
  if (stem.includes('babel')) return 'babel';
  if (stem.includes('postcss')) return 'postcss';
  return 'other';
}

/** One npm package a config file names. */
export interface PackageReference {
  /** The package name (`@scope/pkg`, `pkg`) after shorthand expansion. */
  name: string;
  /** The string as written. */
  written: string;
  /** How it was referenced: import, require, plugins, presets, extends, parser. */
  via: string;
  /** 1-based line. */
  line: number;
}

const stringValue = (node: Node): string | null => {
  if (node.type === 'string') return node.text.slice(1, -1);
  if (node.type === 'template_string' && !node.namedChildren.some((c) => c?.type === 'template_substitution'))
    return node.text.slice(1, -1);
  return null;
};

/**
 * `@scope/pkg/sub` → `@scope/pkg`, `pkg/sub` → `pkg`; null for what is not an installable package:
 * relative or absolute paths, URLs and other `scheme:` ids (`virtual:`, `node:`, `astro:` …), path
 * aliases (`@/`, `~`, `#`), Node builtins, and strings that cannot be npm names.
 */
export function packageName(spec: string): string | null {
  const s = spec.trim();
  if (!s || /^[./~#$]/.test(s) || s.startsWith('@/') || /^[A-Za-z]:[\\/]/.test(s) || /^[a-z][a-z0-9+.-]*:/i.test(s) || /[\s\0\\]/.test(s))
    return null;
  if (isNodeBuiltin(s) || isNodeBuiltin(s.split('/')[0]!)) return null;
  const parts = s.split('/');
  const name = s.startsWith('@') ? (parts.length >= 2 && parts[1] ? `${parts[0]}/${parts[1]}` : null) : parts[0]!;
  if (!name || !/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name)) return null;
  return name;
}

/** Babel's name normalisation for presets/plugins (`@babel/env` → `@babel/preset-env`, `x` → `babel-plugin-x`). */
function babelName(written: string, kind: 'preset' | 'plugin'): string | null {
  if (written.startsWith('module:')) return packageName(written.slice(7));
  const prefix = `babel-${kind}`;
  if (/^@[^/]+$/.test(written)) return `${written}/${prefix}`;
  const name = packageName(written);
  if (!name) return null;
  if (name.startsWith('@babel/'))
    return name.startsWith(`@babel/${kind}-`) || name === '@babel/core' ? name : `@babel/${kind}-${name.slice(7)}`;
  if (name.startsWith('@')) {
    const [scope, pkg] = name.split('/') as [string, string]; // cast: a scoped name (@scope/pkg) always has both parts
    return pkg.startsWith(prefix) ? name : `${scope}/${prefix}-${pkg}`;
  }
  return name.startsWith(prefix) ? name : `${prefix}-${name}`;
}

/** ESLint's legacy shorthand (`react` → `eslint-plugin-react`, `@scope` → `@scope/eslint-plugin`). */
function eslintName(written: string, kind: 'plugin' | 'config'): string | null {
  const prefix = `eslint-${kind}`;
  if (/^@[^/]+$/.test(written)) return `${written}/${prefix}`;
  const name = packageName(written);
  if (!name) return null;
  if (name.startsWith('@')) {
    const [scope, pkg] = name.split('/') as [string, string]; // cast: a scoped name (@scope/pkg) always has both parts
    return pkg.startsWith(prefix) ? name : `${scope}/${prefix}-${pkg}`;
  }
  return name.startsWith(prefix) ? name : `${prefix}-${name}`;
}

/** `extends` entries of a legacy .eslintrc: `plugin:react/recommended` → the plugin, `airbnb` → eslint-config-airbnb. */
function eslintExtends(written: string): string | null {
  if (written.startsWith('eslint:')) return null;
  const plugin = /^plugin:((?:@[^/]+\/)?[^/]+)\//.exec(written) ?? /^plugin:(@[^/]+)\//.exec(written);
  if (plugin) return eslintName(plugin[1]!, 'plugin');
  if (/^[./]/.test(written)) return null;
  // `@scope/eslint-config/x` or `pkg/sub` name a file inside a package: keep the package
  const pkg = packageName(written);
  if (!pkg && !/^@[^/]+$/.test(written)) return null;
  return eslintName(pkg ?? written, 'config');
}

/** Applies the tool's shorthand rules to a string found in `plugins`/`presets`/`extends`/`parser`. */
function expand(tool: ConfigTool, via: string, written: string): string | null {
  if (tool === 'babel' && (via === 'presets' || via === 'plugins')) return babelName(written, via === 'presets' ? 'preset' : 'plugin');
  if (tool === 'eslintrc' && via === 'plugins') return eslintName(written, 'plugin');
  if (tool === 'eslintrc' && via === 'extends') return eslintExtends(written);
  return packageName(written);
}

function keyName(pair: Node): string | null {
  const key = pair.childForFieldName('key');
  if (!key) return null;
  if (key.type === 'property_identifier' || key.type === 'identifier') return key.text;
  return stringValue(key);
}

const ARRAY_KEYS: Record<ConfigTool, string[]> = {
  prettier: ['plugins'],
  eslint: [],
  eslintrc: ['plugins', 'extends', 'parser'],
  babel: ['plugins', 'presets'],
  postcss: ['plugins'],
  other: ['plugins', 'presets'],
};

/** Package references in JS/TS config source (comments never count: they are not in the syntax tree). */
export async function configReferences(path: string, text: string): Promise<PackageReference[]> {
  const tool = configToolOf(path);
  if (!tool) return [];
  const lang: LangId = /\.[mc]?ts$/.test(path) ? 'typescript' : 'javascript';
  return withTree(lang, text, (tree) => {
    const out: PackageReference[] = [];
    const add = (node: Node, via: string) => {
      const written = stringValue(node);
      if (written === null) return;
      const name = expand(tool, via, written);
      if (name) out.push({ name, written, via, line: node.startPosition.row + 1 });
    };
    /** A `plugins`/`presets` value: strings, and the first element of `[name, options]` tuples. */
    const fromList = (value: Node, via: string) => {
      if (value.type === 'string' || value.type === 'template_string') {
        add(value, via);
        return;
      }
      if (value.type === 'object' && tool === 'postcss' && via === 'plugins') {
        for (const pair of value.namedChildren) {
          const key = pair?.type === 'pair' ? pair.childForFieldName('key') : null;
          if (key && (key.type === 'string' || key.type === 'property_identifier')) {
            const name = packageName(key.type === 'string' ? key.text.slice(1, -1) : key.text);
            if (name) out.push({ name, written: key.text.replace(/^['"]|['"]$/g, ''), via, line: key.startPosition.row + 1 });
          }
        }
        return;
      }
      if (value.type !== 'array') return;
      for (const item of value.namedChildren) {
        if (!item) continue;
        if (item.type === 'array') {
          const first = item.namedChildren[0];
          if (first) add(first, via);
        } else add(item, via);
      }
    };
    const visit = (node: Node) => {
      switch (node.type) {
        case 'import_statement':
        case 'export_statement': {
          const source = node.childForFieldName('source');
          if (source) add(source, 'import');
          break;
        }
        case 'call_expression': {
          const fn = node.childForFieldName('function');
          const first = node.childForFieldName('arguments')?.namedChildren[0];
          const isRequire = fn?.type === 'identifier' && fn.text === 'require';
          const isResolve = fn?.type === 'member_expression' && /^require\.resolve$/.test(fn.text);
          if (first && (fn?.type === 'import' || isRequire || isResolve)) add(first, fn.type === 'import' ? 'import' : 'require');
          break;
        }
        case 'pair': {
          const key = keyName(node);
          const value = node.childForFieldName('value');
          if (key && value && ARRAY_KEYS[tool].includes(key)) fromList(value, key);
          break;
        }
      }
      for (const child of node.namedChildren) if (child) visit(child);
    };
    visit(tree.rootNode);
    return out;
  });
}
