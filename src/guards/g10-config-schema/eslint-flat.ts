import type { Node } from 'web-tree-sitter';
import type { GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { languageOf, withTree } from '../../repo/languages.js';
import { field, named } from '../../repo/tree-nodes.js';
import { closestKey } from './did-you-mean.js';
import { TOOL_ROWS } from './tool-behaviour.js';
import type { G10EslintFlatEvidence } from './evidence.js';

/**
 * ESLint's flat config (`eslint.config.{js,mjs,cjs,ts,mts,cts}`), read statically: the config
 * objects written as object literals in the exported array (directly, or as arguments of
 * `defineConfig(…)` / `tseslint.config(…)`, nested arrays flattened). ESLint refuses a config object
 * with a key it does not know ("Unexpected key "rulez" found", exit 2), an unknown `linterOptions`
 * key, and `files`/`ignores` written as a string instead of an array. Spread elements, computed
 * keys and anything built at run time are not judged. `languageOptions` is left alone: its keys
 * depend on the `language` in use.
 */
const FLAT_CONFIG = /(^|\/)eslint\.config\.(?:js|mjs|cjs|ts|mts|cts)$/;

const CONFIG_KEYS = [
  'name',
  'basePath',
  'files',
  'ignores',
  'language',
  'languageOptions',
  'linterOptions',
  'processor',
  'plugins',
  'rules',
  'settings',
];
const LINTER_OPTIONS = ['noInlineConfig', 'reportUnusedDisableDirectives', 'reportUnusedInlineConfigs'];
/** Helpers whose config objects may also say `extends`. */
const HELPER = /(?:^|\.)(?:defineConfig|config)$/;

export function isEslintFlatConfig(path: string): boolean {
  return FLAT_CONFIG.test(path) && !/(^|\/)(?:node_modules|fixtures|__fixtures__|testdata)\//.test(path);
}

interface FlatProblem {
  /** `unknown` key, or `string` where ESLint wants an array. */
  kind: 'unknown' | 'string';
  key: string;
  /** `linterOptions.foo` for a nested key. */
  where: string;
  line: number;
  meant?: string | undefined;
}

function keyOf(prop: Node): { key: string; node: Node; value: Node | null } | null {
  if (prop.type === 'shorthand_property_identifier') return { key: prop.text, node: prop, value: null };
  if (prop.type !== 'pair' && prop.type !== 'method_definition') return null;
  const k = field(prop, prop.type === 'pair' ? 'key' : 'name');
  if (!k) return null;
  if (k.type === 'property_identifier') return { key: k.text, node: k, value: field(prop, 'value') };
  if (k.type === 'string') return { key: k.text.slice(1, -1), node: k, value: field(prop, 'value') };
  return null; // computed key
}

function checkObject(obj: Node, allowExtends: boolean, out: FlatProblem[]): void {
  const allowed = allowExtends ? [...CONFIG_KEYS, 'extends'] : CONFIG_KEYS;
  for (const prop of named(obj)) {
    const k = keyOf(prop);
    if (!k) continue;
    const line = k.node.startPosition.row + 1;
    if (!allowed.includes(k.key)) {
      out.push({ kind: 'unknown', key: k.key, where: k.key, line, meant: closestKey(k.key, allowed) });
      continue;
    }
    if ((k.key === 'files' || k.key === 'ignores') && (k.value?.type === 'string' || k.value?.type === 'template_string')) {
      out.push({ kind: 'string', key: k.key, where: k.key, line });
    }
    if (k.key === 'linterOptions' && k.value?.type === 'object') {
      for (const inner of named(k.value)) {
        const ik = keyOf(inner);
        if (ik && !LINTER_OPTIONS.includes(ik.key)) {
          const where = `linterOptions.${ik.key}`;
          out.push({ kind: 'unknown', key: where, where, line: ik.node.startPosition.row + 1, meant: closestKey(ik.key, LINTER_OPTIONS) });
        }
      }
    }
  }
}

/** The value node a top-level `const name = …` gives `name`, for `export default name`. */
function declaration(root: Node, name: string): Node | null {
  for (const stmt of named(root)) {
    if (stmt.type !== 'lexical_declaration' && stmt.type !== 'variable_declaration') continue;
    for (const d of named(stmt)) if (d.type === 'variable_declarator' && field(d, 'name')?.text === name) return field(d, 'value');
  }
  return null;
}

function unwrap(node: Node | null): Node | null {
  let n = node;
  while (n && (n.type === 'parenthesized_expression' || n.type === 'satisfies_expression' || n.type === 'as_expression'))
    n = named(n)[0] ?? null;
  return n;
}

function visitConfigs(node: Node | null, root: Node, allowExtends: boolean, out: FlatProblem[], depth = 0): void {
  const n = unwrap(node);
  if (!n || depth > 6) return;
  if (n.type === 'identifier') visitConfigs(declaration(root, n.text), root, allowExtends, out, depth + 1);
  else if (n.type === 'array') for (const el of named(n)) visitConfigs(el, root, allowExtends, out, depth + 1);
  else if (n.type === 'object') checkObject(n, allowExtends, out);
  else if (n.type === 'call_expression') {
    const callee = field(n, 'function')?.text.replace(/\s+/g, '') ?? '';
    const args = field(n, 'arguments');
    if (HELPER.test(callee) && args) for (const a of named(args)) visitConfigs(a, root, true, out, depth + 1);
  }
}

/** The exported config: `export default …` or `module.exports = …`. */
function exported(root: Node): Node | null {
  for (const stmt of named(root)) {
    if (stmt.type === 'export_statement' && /^export\s+default\b/.test(stmt.text))
      return field(stmt, 'value') ?? named(stmt).at(-1) ?? null;
    if (stmt.type === 'expression_statement') {
      const e = named(stmt)[0];
      if (e?.type === 'assignment_expression' && field(e, 'left')?.text.replace(/\s+/g, '') === 'module.exports') return field(e, 'right');
    }
  }
  return null;
}

async function flatProblems(path: string, text: string): Promise<FlatProblem[]> {
  const lang = languageOf(path);
  if (!lang) return [];
  return withTree(lang, text, (tree) => {
    if (tree.rootNode.hasError) return []; // G2 reports a file that does not parse
    const out: FlatProblem[] = [];
    visitConfigs(exported(tree.rootNode), tree.rootNode, false, out);
    return out;
  });
}

const ROW = TOOL_ROWS.find((r) => r.id === 'eslint-flat');

/** G10 for a changed ESLint flat config: the problems the PR introduced, as one `fail` finding. */
export async function eslintFlatProblems(file: ChangedFile): Promise<GuardFinding[]> {
  if (file.head.text === null) return [];
  const head = await flatProblems(file.path, file.head.text);
  if (head.length === 0) return [];
  const before = file.base.text !== null ? await flatProblems(file.oldPath ?? file.path, file.base.text) : [];
  const known = new Set(before.map((p) => `${p.kind}:${p.where}`));
  const introduced = head.filter((p) => !known.has(`${p.kind}:${p.where}`));
  const best = introduced[0];
  if (!best) return [];
  const more =
    introduced.length > 1 ? ` (${introduced.length - 1} more problem${introduced.length === 2 ? '' : 's'} of this kind in this file)` : '';
  const said = ROW?.says[best.kind === 'unknown' ? 0 : 1];
  const says = typeof said === 'string' ? said : 'ESLint stops on it';
  const meant = best.meant ? ` Did you mean \`${best.meant}\`?` : '';
  return [
    {
      category: 'schema-invalid',
      severity: 'fail',
      path: file.path,
      line: best.line,
      message:
        best.kind === 'unknown'
          ? `${file.path}: a config object has the unknown key \`${best.where}\`: ${says}${more}.${meant}`
          : `${file.path}: \`${best.where}\` is a string, but ESLint wants an array of patterns: ${says}${more}.`,
      remediation:
        best.kind === 'unknown'
          ? best.meant
            ? `Rename \`${best.where}\` to \`${best.meant}\`, or remove it. ESLint does not run until it is fixed.`
            : `Remove \`${best.where}\` (a flat config object takes ${CONFIG_KEYS.join(', ')}). ESLint does not run until it is fixed.`
          : `Write \`${best.where}\` as an array (\`${best.key}: ["…"]\`). ESLint does not run until it is fixed.`,
      evidence: {
        tool: 'eslint-flat',
        verdict: 'rejects',
        key: best.where,
        others: introduced.slice(1, 6).map((p) => p.where),
      } satisfies G10EslintFlatEvidence,
    },
  ];
}
