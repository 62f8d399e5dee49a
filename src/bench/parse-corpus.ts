import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { GuardContext } from '../core/guard.js';
import { parseJsonAs } from '../core/parse-data.js';
import type { ChangedFile } from '../core/patch-set.js';
import { decodeText } from '../core/text-content.js';
import { g2 } from '../guards/g2-syntax/index.js';
import { syntaxKindOf } from '../guards/g2-syntax/file-kinds.js';

/**
 * The G2 parse bench: every source file of real repositories, at a pinned commit, goes through G2
 * as an added file. Valid code must give no finding; the files a repository keeps broken on purpose
 * (parser-error fixtures) are listed, each with its reason, in bench/parse-corpus.json.
 */
export interface ExpectedInvalid {
  path: string;
  why: string;
}

export interface CorpusRepo {
  repo: string;
  commit: string;
  kind?: string;
  expectedInvalid?: ExpectedInvalid[];
}

export interface RepoParseResult {
  repo: string;
  files: number;
  /** Files the gate would not read as text (NUL bytes, not UTF-8), so G2 never sees them. */
  notText: number;
  /** Findings on files not listed as expected-invalid: each one is G2 calling valid code invalid. */
  errors: { path: string; line: number | undefined; message: string }[];
  /** Listed expected-invalid files that G2 did reject. */
  expectedRejected: number;
  /** Listed expected-invalid files that G2 accepted (the list may be stale). */
  expectedAccepted: string[];
  ms: number;
}

const corpusFile = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'parse-corpus.json');

/** bench/parse-corpus.json: the repositories, pinned, and the files each is expected to have invalid. */
const corpusJson = z.object({
  repos: z.array(
    z.object({
      repo: z.string(),
      commit: z.string(),
      kind: z.string().optional(),
      expectedInvalid: z.array(z.object({ path: z.string(), why: z.string() })).optional(),
    }),
  ),
}) satisfies z.ZodType<{ repos: CorpusRepo[] }>;

export function loadCorpus(file = corpusFile): CorpusRepo[] {
  return parseJsonAs(corpusJson, readFileSync(file, 'utf8'), file).repos;
}

/** The directory bench/extract-parse-corpus.sh writes a repository to. */
export const repoDirName = (repo: string): string => repo.replace('/', '+');

function* sourceFiles(root: string, dir = root): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(root, full);
    else if (entry.isFile()) {
      const path = relative(root, full).split(sep).join('/');
      if (syntaxKindOf(path)?.kind === 'code') yield path;
    }
  }
}

function addedFile(path: string, text: string): ChangedFile {
  const absent = { oid: null, mode: null, size: 0, text: null };
  return {
    path,
    status: 'added',
    modeChanged: false,
    base: absent,
    head: { oid: null, mode: '100644', size: text.length, text },
    added: [],
    removed: [],
  };
}

/** G2 reads nothing from its context; the bench calls it without a pipeline around it. */
const NO_CONTEXT = {} as GuardContext; // cast: the parse benchmark calls extractors that never read the context

export async function parseRepo(root: string, entry: CorpusRepo): Promise<RepoParseResult> {
  const expected = new Map((entry.expectedInvalid ?? []).map((e) => [e.path, e]));
  const result: RepoParseResult = { repo: entry.repo, files: 0, notText: 0, errors: [], expectedRejected: 0, expectedAccepted: [], ms: 0 };
  const t0 = performance.now();
  for (const path of sourceFiles(root)) {
    const decoded = decodeText(readFileSync(join(root, path)));
    if (!('text' in decoded)) {
      result.notText++;
      continue;
    }
    const file = addedFile(path, decoded.text);
    if (!g2.appliesTo(file, NO_CONTEXT)) continue;
    result.files++;
    const findings = (await g2.checkFile?.(file, NO_CONTEXT)) ?? [];
    if (expected.has(path)) {
      if (findings.length) result.expectedRejected++;
      else result.expectedAccepted.push(path);
    } else {
      for (const f of findings) result.errors.push({ path, line: f.line, message: f.message });
    }
  }
  result.ms = performance.now() - t0;
  return result;
}

/**
 * `npm run bench:parse [-- <corpus-dir>]` (or PARSE_CORPUS_DIR): one line per repository, then every
 * false syntax error. Skips, saying so, when the corpus has not been extracted (CI has no network).
 * Returns the number of false syntax errors.
 */
export async function parseCorpusBench(corpusDir: string | undefined, print: (line: string) => void = console.log): Promise<number> {
  const how = 'extract it with bench/extract-parse-corpus.sh <mirrors-dir> <corpus-dir>';
  if (!corpusDir) {
    print(`parse corpus: skipped, no corpus directory (set PARSE_CORPUS_DIR or pass it as an argument; ${how})`);
    return 0;
  }
  if (!existsSync(corpusDir)) {
    print(`parse corpus: skipped, ${corpusDir} does not exist (${how})`);
    return 0;
  }
  let falseErrors = 0;
  const problems: string[] = [];
  for (const entry of loadCorpus()) {
    const root = join(corpusDir, repoDirName(entry.repo));
    if (!existsSync(root)) {
      print(`parse ${entry.repo}: skipped, not in ${corpusDir}`);
      continue;
    }
    const r = await parseRepo(root, entry);
    falseErrors += r.errors.length;
    const listed = entry.expectedInvalid?.length ?? 0;
    print(
      `parse ${entry.repo}@${entry.commit.slice(0, 12)}: ${r.files} source files${r.notText ? ` (+${r.notText} not text, skipped as the gate does)` : ''}, ${r.errors.length} syntax errors` +
        `${listed ? `, ${r.expectedRejected}/${listed} listed parse-error fixtures rejected` : ''}, ${(r.ms / 1000).toFixed(1)} s`,
    );
    for (const e of r.errors) problems.push(`  ${entry.repo} ${e.path}:${e.line ?? '?'} ${e.message}`);
    for (const p of r.expectedAccepted) problems.push(`  ${entry.repo} ${p}: listed as invalid but G2 accepts it`);
  }
  if (problems.length) print(`parse corpus findings:\n${problems.join('\n')}`);
  return falseErrors;
}
