import type { GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { languageOf } from '../../repo/languages.js';
import { isTestPath } from '../shared/test-paths.js';
import { publicSignatures, renderParams, type Param, type PublicSignature } from './signatures.js';
import type { G4SignatureEvidence } from './evidence.js';

const sameParams = (a: Param[], b: Param[]) => a.length === b.length && a.every((p, i) => p.text === b[i]!.text);

/** True when the new list only appends parameters callers may omit (old calls keep working). */
function onlyAppendsOptional(before: Param[], after: Param[]): boolean {
  if (after.length <= before.length || before.some((p) => p.text === '|')) return false;
  return before.every((p, i) => p.text === after[i]!.text) && after.slice(before.length).every((p) => p.optional);
}

/** The default value as written, or '' (`b: int = 1` → `1`). */
const defaultOf = (p: Param) => (/=(?!=)\s*(.*)$/s.exec(p.text)?.[1] ?? '').trim();

/** The parameter text without its default value (`b = 1` → `b`, `b: number = 1` → `b: number`). */
const withoutDefault = (p: Param) => p.text.replace(/\s*=[^=].*$/s, '').trim();

/** True when only default values changed: same parameters, same order, same optionality. */
function onlyDefaultsChanged(before: Param[], after: Param[]): boolean {
  return (
    before.length === after.length &&
    before.every((p, i) => p.optional === after[i]!.optional && withoutDefault(p) === withoutDefault(after[i]!))
  );
}

function finding(file: ChangedFile, was: PublicSignature, now: PublicSignature): GuardFinding {
  const compatible = onlyAppendsOptional(was.params, now.params) || onlyDefaultsChanged(was.params, now.params);
  const before = renderParams(was.params);
  const after = renderParams(now.params);
  return {
    category: 'signature-change',
    severity: compatible ? 'nit' : 'risk',
    path: file.path,
    line: now.line,
    message:
      `The public ${was.key.includes('.') || was.key.includes('::') ? 'method' : 'function'} '${was.key}' changed its parameters: ` +
      `${before} at base, ${after} at head (line ${now.line}).` +
      (compatible ? ' Existing calls still work (only optional parameters or default values changed).' : ' Existing callers may break.'),
    remediation: compatible
      ? `Confirm that callers relying on the defaults of '${was.key}', and overrides or wrappers elsewhere, still behave as intended.`
      : `Check every caller of '${was.key}' (in this repo and in code that depends on it) or keep the old signature, for example by adding new parameters with defaults.`,
    evidence: { name: was.key, before, after } satisfies G4SignatureEvidence,
  };
}

/**
 * How a Python caller sees a parameter: its stars, its name and whether it has a default. Type
 * annotations are invisible at run time (`x: typing.Any` → `x: Any` breaks no call).
 */
function pythonCallShape(p: Param): string {
  const m = /^(\*{0,2})\s*([\w]+)?\s*(?::[^=]*)?(=.*)?$/s.exec(p.text.trim());
  return m ? `${m[1]}${m[2] ?? ''}${m[3] ? '=' : ''}` : p.text;
}

/** Same names, stars and defaults in the same order: only annotations differ. */
const onlyAnnotationsChanged = (a: Param[], b: Param[]) =>
  a.length === b.length && a.every((p, i) => pythonCallShape(p) === pythonCallShape(b[i]!) && defaultOf(p) === defaultOf(b[i]!));

/** Python modules under a `_private` package or file are not public API (`pkg/_utils.py`). */
const privatePythonModule = (path: string) => path.split('/').some((part) => part.startsWith('_') && !/^__init__\.pyi?$/.test(part));

/** G4 (b): public functions and methods whose parameter list differs between base and head. */
export async function signatureChanges(file: ChangedFile): Promise<GuardFinding[]> {
  if (file.base.text === null || file.head.text === null) return [];
  const lang = languageOf(file.path);
  const baseLang = languageOf(file.oldPath ?? file.path);
  if (!lang || lang !== baseLang || lang === 'java') return [];
  if (isTestPath(file.path)) return []; // test functions are called by the runner, not by code that could break
  if (lang === 'python' && privatePythonModule(file.path)) return [];
  const [base, head] = await Promise.all([publicSignatures(lang, file.base.text), publicSignatures(lang, file.head.text)]);
  const out: GuardFinding[] = [];
  for (const [key, was] of base) {
    const now = head.get(key);
    if (!now || sameParams(was.params, now.params)) continue;
    if (lang === 'python' && onlyAnnotationsChanged(was.params, now.params)) continue; // no call breaks
    out.push(finding(file, was, now));
  }
  return out;
}
