import { codeBlocksOf, type CodeBlock } from '../../core/fenced-blocks.js';
import type { ChangedFile } from '../../core/patch-set.js';
import type { Ecosystem, RepoFingerprint } from '../../repo/fingerprint-types.js';
import { hasFramework } from '../../repo/fingerprint-query.js';
import { frameworksOf } from '../../repo/frameworks.js';
import { docKindOf, isAdded, textLines, type DocKind } from './doc-files.js';
import { blank, maskCodeSpans, maskComments } from './doc-masks.js';
import { nameKey } from './own-names.js';
import { COMPILED_PATTERNS, type CompiledPattern } from './framework-patterns.js';

/** One mention of a framework in text the PR added. */
export interface FrameworkClaim {
  id: string;
  /** The framework's usual name (for messages). */
  name: string;
  /** The text as written ("React.js", "Express", "from 'react'"). */
  literal: string;
  /** 1-based head line. */
  line: number;
  inCode: boolean;
}

// ---- prose --------------------------------------------------------------------------------

/** Inline code, URLs, link destinations, HTML tags/comments blanked (same length). */
function maskProse(line: string, kind: DocKind): string {
  // Bounded repetitions and one-pass masks: a hostile line costs linear time.
  let out = maskComments(line)
    .replace(/<[^<>\n]{1,2000}>/g, blank)
    .replace(/\]\([^()\n]{0,2000}\)/g, blank)
    .replace(/\bhttps?:\/\/\S+/g, blank);
  out = kind === 'rst' ? out.replace(/``[^`]+``|`[^`<]*<[^>`]+>`_+/g, blank) : maskCodeSpans(out);
  return out.replace(/^\s*\[[^\]]+\]:\s.*$/, blank); // reference definitions
}

/** Words after a bare name that make it a framework ("Express framework", "Click library"). */
const FRAMEWORK_NOUN =
  /^[ \t]+(?:(?:web|http|cli|ui|go|rust|python|js|micro)[ \t-]+)?(?:framework|micro-?framework|library|middleware|router|routing|server framework)\b/i;
/** Phrases that introduce a technology ("built with Express", "powered by Rocket"). */
const INTRODUCER =
  /(?:\b(?:built|written|made|implemented|developed|created|served)[ \t]+(?:with|on|using|upon|in|by)|\bpowered[ \t]+by|\bbased[ \t]+on|\bon[ \t]+top[ \t]+of|\bruns?[ \t]+on|\busing|\buses|\bvia)[ \t]+$/i;
/** Earlier items of a list the name ends ("built with Axum and Warp", "React + Express"). */
const LIST_TAIL = /(?:[A-Z][\w.-]*(?:[ \t]+[A-Z][\w.-]*)?(?:,[ \t]*|[ \t]+(?:and|or|&)[ \t]+|[ \t]*[/+][ \t]*))+$/;
/** What follows a UI label ("click Next button", "press Echo key"): not a framework. */
const UI_FOLLOWER =
  /^(?:[ \t]+(?:button|buttons|key|tab|page|step|steps|link|menu|icon|arrow|chapter|section|time|up|down)\b|[ \t]+(?:and|or|\/)[ \t]+(?:Back|Previous|Prev|Cancel|Finish|Done|OK|Skip|Close)\b)/i;

/** Cues in the same clause that make a mention a non-claim ("unlike React", "instead of Vue", "not Redux"). */
const NON_CLAIM =
  /\b(?:not|no|never|without|unlike|instead[ \t]+of|rather[ \t]+than|except|nor|neither|isn't|aren't|doesn't|don't|won't|didn't|no[ \t]+longer|vs\.?|versus|compared[ \t]+(?:to|with)|similar[ \t]+to|inspired[ \t]+by|alternatives?[ \t]+to|like|drop(?:s|ped|ping)?|remov(?:e|es|ed|ing)|replac(?:e|es|ed|ing)|(?:migrat(?:e|es|ed|ing)|switch(?:es|ed|ing)?|mov(?:e|es|ed|ing))[ \t]+(?:away[ \t]+)?from)\b/i;

/** What follows a name used as an English verb at the start of a sentence ("React to changes", "React quickly"). */
const VERB_USE =
  /^[ \t]+(?:to|quickly|fast|immediately|accordingly|appropriately|promptly|swiftly|differently|calmly|well|badly|only|when|if)\b/;

/**
 * How far back from a mention its context is read. Every context rule looks at the few words before
 * the name; the window keeps a line with thousands of mentions linear instead of quadratic.
 */
const CONTEXT_WINDOW = 240;

/** Up to {@link CONTEXT_WINDOW} characters of the line before position `at`. */
function windowBefore(line: string, at: number): string {
  return line.slice(Math.max(0, at - CONTEXT_WINDOW), at);
}

const CLAUSE_BOUNDARIES = ['.', ';', ':', '!', '?', ',', '(', ')', '[', ']', '|', '—', '–'];

/** The clause before position `at`: back to the last sentence or clause boundary. */
function clauseBefore(line: string, at: number): string {
  const before = windowBefore(line, at);
  const cut = Math.max(...CLAUSE_BOUNDARIES.map((c) => before.lastIndexOf(c)));
  return before.slice(cut + 1);
}

function atSentenceStart(line: string, at: number): boolean {
  let end = at;
  while (end > 0 && ' \t*_"\'“‘('.includes(line[end - 1]!)) end--;
  if (end === 0) return true;
  const before = line.slice(Math.max(0, end - CONTEXT_WINDOW), end);
  const whole = end <= CONTEXT_WINDOW;
  return /[.!?:|]$/.test(before) || (whole && /^[ \t]*(?:[-*+>]|\d+[.)]|#+)$/.test(before));
}

/** True when a bare name (Express, Next …) is used as a framework name here. */
function bareInContext(line: string, at: number, word: string): boolean {
  const after = line.slice(at + word.length, at + word.length + CONTEXT_WINDOW);
  if (UI_FOLLOWER.test(after)) return false;
  if (FRAMEWORK_NOUN.test(after)) return true;
  if (atSentenceStart(line, at)) return false;
  const before = windowBefore(line, at).replace(LIST_TAIL, '');
  return INTRODUCER.test(before);
}

function proseClaims(line: string, lineNo: number, kind: DocKind): FrameworkClaim[] {
  let text = maskProse(line, kind);
  const out: FrameworkClaim[] = [];
  const take = (p: CompiledPattern, re: RegExp | null, bare: boolean) => {
    if (!re) return;
    for (const m of text.matchAll(re)) {
      const at = m.index;
      if (bare && !bareInContext(text, at, m[0])) continue;
      if (p.verb && atSentenceStart(text, at) && VERB_USE.test(text.slice(at + m[0].length, at + m[0].length + CONTEXT_WINDOW))) continue;
      if (NON_CLAIM.test(clauseBefore(text, at))) continue;
      out.push({ id: p.id, name: p.name, literal: m[0], line: lineNo, inCode: false });
    }
  };
  // Strong spellings first, then overwrite them with a capitalised stand-in so "Next.js" is not seen
  // again as a bare "Next" while lists keep their shape ("built with React and Express").
  for (const p of COMPILED_PATTERNS) take(p, p.strongRe, false);
  for (const p of COMPILED_PATTERNS) if (p.strongRe) text = text.replace(p.strongRe, (s) => 'X'.repeat(s.length));
  for (const p of COMPILED_PATTERNS) take(p, p.bareRe, true);
  return out;
}

// ---- code blocks --------------------------------------------------------------------------

/** Fence languages → the repo language that could run them (shells, data and config never count). */
const FENCE_LANGUAGE: Record<string, string[]> = {
  js: ['javascript', 'typescript'],
  javascript: ['javascript', 'typescript'],
  jsx: ['javascript', 'typescript'],
  mjs: ['javascript', 'typescript'],
  cjs: ['javascript', 'typescript'],
  ts: ['typescript', 'javascript'],
  typescript: ['typescript', 'javascript'],
  tsx: ['typescript', 'javascript'],
  py: ['python'],
  python: ['python'],
  python3: ['python'],
  py3: ['python'],
  rs: ['rust'],
  rust: ['rust'],
  go: ['go'],
  golang: ['go'],
  vue: ['vue', 'javascript', 'typescript'],
  svelte: ['svelte', 'javascript', 'typescript'],
  astro: ['astro', 'javascript', 'typescript'],
};

function runnableBlock(block: CodeBlock, fp: RepoFingerprint): Ecosystem | null {
  const lang = block.info
    .replace(/^[{.]+/, '')
    .split(/[\s,{}]/)[0]!
    .toLowerCase();
  const needs = FENCE_LANGUAGE[lang];
  if (!needs?.some((l) => (fp.languages[l] ?? 0) > 0)) return null;
  if (needs.includes('python')) return 'python';
  if (needs.includes('rust')) return 'rust';
  if (needs.includes('go')) return 'go';
  return 'npm';
}

const IMPORTS: Record<string, RegExp> = {
  npm: /(?:\bfrom[ \t]+|\bimport[ \t]+|\brequire[ \t]*\([ \t]*|\bimport[ \t]*\([ \t]*)["']([^"'\s]+)["']/g,
  python: /^[ \t]*(?:from[ \t]+([\w]+)[\w.]*[ \t]+import|import[ \t]+([\w]+))/g,
  rust: /^[ \t]*(?:pub[ \t]+)?use[ \t]+([\w]+)::/g,
  go: /"((?:github\.com|gitlab\.com)\/[^"\s]+)"/g,
};

/** Package name an import names (`@scope/pkg/sub` → `@scope/pkg`, `pkg/sub` → `pkg`; Rust `_` → `-`). */
function packageOf(ecosystem: Ecosystem, spec: string): string {
  if (ecosystem === 'npm') return spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
  if (ecosystem === 'rust') return spec.replace(/_/g, '-');
  return spec;
}

function codeClaims(line: string, lineNo: number, ecosystem: Ecosystem): FrameworkClaim[] {
  const out: FrameworkClaim[] = [];
  for (const m of line.matchAll(IMPORTS[ecosystem] ?? /$^/g)) {
    const spec = m[1] ?? m[2];
    if (!spec) continue;
    for (const id of frameworksOf(ecosystem, packageOf(ecosystem, spec))) {
      const p = COMPILED_PATTERNS.find((c) => c.id === id);
      if (p) out.push({ id, name: p.name, literal: m[0].trim(), line: lineNo, inCode: true });
    }
  }
  // canonical names used in code (React.useState, Vue.createApp); bare words never count in code
  for (const p of COMPILED_PATTERNS) {
    for (const m of p.strongRe ? line.matchAll(p.strongRe) : [])
      out.push({ id: p.id, name: p.name, literal: m[0], line: lineNo, inCode: true });
  }
  return out;
}

// ---- the file -----------------------------------------------------------------------------

/** Framework mentions on the lines the PR added to a doc (prose, and runnable code blocks). */
export function frameworkClaims(file: ChangedFile, fp: RepoFingerprint): FrameworkClaim[] {
  const kind = docKindOf(file.path);
  const text = file.head.text;
  if (!kind || text === null) return [];
  const lines = textLines(text);
  const blockOf = new Map<number, CodeBlock | null>();
  if (kind !== 'text') {
    for (const block of codeBlocksOf(file.path, text)) {
      const last = block.closeLine ?? block.body.at(-1)?.line ?? block.openLine;
      for (let l = block.openLine; l <= last; l++) blockOf.set(l, block);
      blockOf.set(block.openLine, null); // fence lines themselves hold no claims
      if (block.closeLine) blockOf.set(block.closeLine, null);
    }
  }
  const claims: FrameworkClaim[] = [];
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    if (!isAdded(file, lineNo)) return;
    if (!blockOf.has(lineNo)) return void claims.push(...proseClaims(line, lineNo, kind));
    const block = blockOf.get(lineNo);
    const ecosystem = block ? runnableBlock(block, fp) : null;
    if (ecosystem) claims.push(...codeClaims(line, lineNo, ecosystem));
  });
  return claims;
}

/**
 * True when the repo grounds framework `id`: the fingerprint infers it from a declared dependency
 * (react-dom → react, @nestjs/core → nestjs …), a dependency has exactly that name, or the repo
 * is that framework itself (one of its own packages, crates or Python projects). Never a loose
 * substring match (`gin` is not grounded by `eslint-plugin-x`).
 */
export function isGroundedFramework(id: string, fp: RepoFingerprint, extraOwn: Iterable<string> = []): boolean {
  if (hasFramework(fp, id)) return true;
  const own = [...fp.localPackages, ...fp.rustCrates, ...fp.pythonProjects, ...extraOwn].map((n) => n.toLowerCase());
  if (fp.goModules.some((m) => frameworksOf('go', m).includes(id))) return true;
  if (
    own.some(
      (n) =>
        n === id || frameworksOf('npm', n).includes(id) || frameworksOf('rust', n).includes(id) || frameworksOf('python', n).includes(id),
    )
  )
    return true;
  // The project's own name spelled like the framework ("Cobra" in spf13/cobra, "Next.js" in next.js).
  const pattern = COMPILED_PATTERNS.find((p) => p.id === id);
  const spellings = new Set([id, ...(pattern ? [...pattern.strong, ...(pattern.bare ?? [])] : [])].map(nameKey).filter(Boolean));
  return own.some((n) => spellings.has(nameKey(n)) || spellings.has(nameKey(n.split('/').at(-1) ?? n)));
}
