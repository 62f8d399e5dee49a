import * as jsonc from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import type { Finding } from '../../core/finding.js';
import { checkConfig } from '../../guards/g2-syntax/config-parsers.js';
import { syntaxKindOf } from '../../guards/g2-syntax/file-kinds.js';
import type { Recipe, RecipeContext, RecipeFix } from '../types.js';
import { fixOf } from './line-suggestion.js';

/**
 * G2: the two config mistakes with one certain fix — a TOML string value written without quotes
 * (`name = my-app`) and a trailing comma in strict JSON. The parser's first error is fixed, then the
 * next, until the file parses; any other error on the way means "not sure" and no fix.
 */

/** More fixes than this in one file is not a stray mistake. */
const MAX_FIXES = 20;

function tomlParses(text: string): boolean {
  try {
    parseToml(text);
    return true;
  } catch {
    return false;
  }
}

/** TOML: the line G2's parser check quotes (`key = "value"`), one at a time. */
function quoteNext(text: string): string | null {
  const problem = checkConfig('toml', text);
  if (problem?.fixedLine === undefined) return null;
  const lines = text.split('\n');
  const old = lines[problem.line - 1];
  if (old === undefined) return null;
  lines[problem.line - 1] = problem.fixedLine + (old.endsWith('\r') ? '\r' : '');
  return lines.join('\n');
}

const STRICT: jsonc.ParseOptions = { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false };

function jsonErrors(text: string): jsonc.ParseError[] {
  const errors: jsonc.ParseError[] = [];
  jsonc.parse(text, errors, STRICT);
  return errors;
}

function jsonParses(text: string): boolean {
  if (jsonErrors(text).length > 0) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** JSON: the comma right before the `}`/`]` of the first error, removed; null when the first error is anything else. */
function dropNextComma(text: string): string | null {
  const first = jsonErrors(text)[0];
  if (!first) return null;
  const ch = text[first.offset];
  if (ch !== '}' && ch !== ']') return null;
  let i = first.offset - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return text[i] === ',' ? text.slice(0, i) + text.slice(i + 1) : null;
}

async function repair(finding: Finding, ctx: RecipeContext): Promise<RecipeFix | null> {
  const path = finding.path;
  if (!path) return null; // every finding this recipe handles names its file
  const kind = syntaxKindOf(path)?.kind;
  if (kind !== 'toml' && kind !== 'json') return null;
  const current = await ctx.readCurrent(path);
  if (current === null) return null;
  const [parses, step] = kind === 'toml' ? [tomlParses, quoteNext] : [jsonParses, dropNextComma];
  if (parses(current)) return null;
  let text = current;
  let fixes = 0;
  while (!parses(text)) {
    const next = fixes < MAX_FIXES ? step(text) : null;
    if (next === null || next === text) return null;
    text = next;
    fixes++;
  }
  const s = fixes === 1 ? '' : 's';
  const what = kind === 'toml' ? `quoted ${fixes} bare TOML string${s}` : `dropped ${fixes} trailing comma${s}`;
  return fixOf(ctx, {
    recipe: 'g2-config-syntax',
    findingIds: [finding.id],
    path,
    before: current,
    after: text,
    summary: `${what} in ${path}`,
  });
}

export const g2ConfigSyntax: Recipe = {
  id: 'g2-config-syntax',
  handles(f) {
    if (f.guard !== 'G2' || f.category !== 'syntax-invalid' || !f.path) return false;
    const kind = syntaxKindOf(f.path)?.kind;
    return kind === 'toml' || kind === 'json';
  },
  fix: repair,
};
