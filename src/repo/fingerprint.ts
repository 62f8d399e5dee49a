import { evictOldest } from '../core/evict-oldest.js';
import type { GuardContext } from '../core/guard.js';
import type { Revision } from '../core/revision.js';
import { ECOSYSTEMS, emptyFingerprint, type Ecosystem, type ManifestInfo, type RepoFingerprint } from './fingerprint-types.js';
import { frameworksOf } from './frameworks.js';
import { countLanguages } from './language-stats.js';
import { isSkippedPath, manifestParserFor } from './manifests/index.js';
import { parseRequirements } from './manifests/requirements.js';

export type { RepoFingerprint, Ecosystem } from './fingerprint-types.js';

/** Rounds of `-r` includes followed (a chain deeper than this is ignored). */
const MAX_INCLUDE_DEPTH = 4;
/** Fingerprints kept in the per-process cache (keyed by tree id, so entries never go stale). */
const CACHE_SIZE = 64;
const cache = new Map<string, Promise<RepoFingerprint>>();

interface ParsedManifest {
  path: string;
  info: ManifestInfo;
}

function parseOne(path: string, text: string, asRequirements = false): ParsedManifest | null {
  const parser = asRequirements ? parseRequirements : manifestParserFor(path);
  if (!parser) return null;
  try {
    return { path, info: parser(path, text) };
  } catch {
    return null; // a manifest that does not parse declares nothing; G2 reports the syntax error
  }
}

/** Reads manifests from `rev`, then follows requirements `-r` includes that were not read yet. */
async function readManifests(rev: Revision, paths: string[], alreadyRead = new Set<string>()): Promise<ParsedManifest[]> {
  const out: ParsedManifest[] = [];
  const texts = await rev.readTexts(paths);
  for (const p of paths) alreadyRead.add(p);
  for (const [p, text] of texts) {
    const m = parseOne(p, text);
    if (m) out.push(m);
  }
  await followIncludes(rev, out, alreadyRead);
  return out;
}

async function followIncludes(rev: Revision, parsed: ParsedManifest[], alreadyRead: Set<string>): Promise<void> {
  let frontier = parsed;
  for (let depth = 0; depth < MAX_INCLUDE_DEPTH && frontier.length; depth++) {
    const wanted = [...new Set(frontier.flatMap((m) => m.info.includes ?? []))].filter((p) => !alreadyRead.has(p));
    if (!wanted.length) return;
    for (const p of wanted) alreadyRead.add(p);
    const texts = await rev.readTexts(wanted);
    frontier = [];
    for (const [p, text] of texts) {
      const m = parseOne(p, text, true);
      if (m) frontier.push(m);
    }
    parsed.push(...frontier);
  }
}

const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort();

/** Builds a fingerprint from parsed manifests and the tree's paths (for language counts). */
export function fingerprintFromManifests(manifests: ParsedManifest[], languages: Record<string, number>): RepoFingerprint {
  const fp = emptyFingerprint();
  // cast: fromEntries types its keys as string; mapping over ECOSYSTEMS gives every Ecosystem exactly one set
  const deps = Object.fromEntries(ECOSYSTEMS.map((e) => [e, new Set<string>()])) as Record<Ecosystem, Set<string>>;
  const frameworks = new Set<string>();
  const ecosystems = new Set<Ecosystem>();
  for (const { path, info } of manifests) {
    fp.manifests.push(path);
    ecosystems.add(info.ecosystem);
    for (const d of info.deps) {
      deps[info.ecosystem].add(d);
      for (const id of frameworksOf(info.ecosystem, d)) frameworks.add(id);
    }
    fp.localPackages.push(...(info.localPackages ?? []));
    fp.goModules.push(...(info.goModules ?? []));
    fp.rustCrates.push(...(info.rustCrates ?? []));
    fp.pythonProjects.push(...(info.pythonProjects ?? []));
  }
  // The repo's own packages are local, not dependencies (a workspace depending on a sibling).
  for (const e of ECOSYSTEMS) fp.deps[e] = sorted(deps[e]);
  fp.manifests = sorted(fp.manifests);
  fp.frameworks = sorted(frameworks);
  fp.languages = languages;
  fp.goModules = sorted(fp.goModules);
  fp.rustCrates = sorted(fp.rustCrates);
  fp.localPackages = sorted(fp.localPackages);
  fp.pythonProjects = sorted(fp.pythonProjects);
  fp.ecosystems = ECOSYSTEMS.filter((e) => ecosystems.has(e));
  return fp;
}

/** The union of two fingerprints (every list merged; language counts summed per language by maximum). */
export function mergeFingerprints(a: RepoFingerprint, b: RepoFingerprint): RepoFingerprint {
  const languages: Record<string, number> = { ...a.languages };
  for (const [lang, n] of Object.entries(b.languages)) languages[lang] = Math.max(languages[lang] ?? 0, n);
  const ecosystems = new Set([...a.ecosystems, ...b.ecosystems]);
  return {
    manifests: sorted([...a.manifests, ...b.manifests]),
    // cast: fromEntries types its keys as string; mapping over ECOSYSTEMS gives every Ecosystem its merged list
    deps: Object.fromEntries(ECOSYSTEMS.map((e) => [e, sorted([...a.deps[e], ...b.deps[e]])])) as Record<Ecosystem, string[]>,
    frameworks: sorted([...a.frameworks, ...b.frameworks]),
    languages,
    goModules: sorted([...a.goModules, ...b.goModules]),
    rustCrates: sorted([...a.rustCrates, ...b.rustCrates]),
    localPackages: sorted([...a.localPackages, ...b.localPackages]),
    pythonProjects: sorted([...a.pythonProjects, ...b.pythonProjects]),
    ecosystems: ECOSYSTEMS.filter((e) => ecosystems.has(e)),
  };
}

async function compute(rev: Revision): Promise<RepoFingerprint> {
  const paths = (await rev.paths()).filter((p) => !isSkippedPath(p));
  const manifestPaths = paths.filter((p) => manifestParserFor(p) !== null);
  const manifests = await readManifests(rev, manifestPaths);
  return fingerprintFromManifests(manifests, countLanguages(paths));
}

/**
 * The fingerprint of one tree: every manifest at any depth (vendored and build folders skipped),
 * declared dependencies per ecosystem, inferred frameworks and language counts. Cached per tree id.
 */
export async function computeFingerprint(rev: Revision): Promise<RepoFingerprint> {
  const tree = await rev.treeId();
  let hit = cache.get(tree);
  if (hit) {
    cache.delete(tree); // refresh recency
    cache.set(tree, hit);
    return hit;
  }
  hit = compute(rev);
  cache.set(tree, hit);
  hit.catch(() => cache.delete(tree));
  evictOldest(cache, CACHE_SIZE);
  return hit;
}

/** What the PR itself declares: the manifests it adds or changes, read at head (with their `-r` includes). */
async function prDeclared(ctx: GuardContext): Promise<RepoFingerprint> {
  const parsed: ParsedManifest[] = [];
  const read = new Set<string>();
  for (const f of ctx.patch.files) {
    if (f.status === 'deleted' || f.head.text === null) continue;
    const m = parseOne(f.path, f.head.text);
    if (!m) continue;
    read.add(f.path);
    parsed.push(m);
  }
  if (!parsed.length) return emptyFingerprint();
  await followIncludes(ctx.head, parsed, read);
  return fingerprintFromManifests(parsed, {});
}

/**
 * The fingerprint the grounding guards check against, computed once per run: the base tree's
 * fingerprint united with what the PR's own manifest edits declare, so a PR that adds a dependency
 * and uses it is grounded (whether it may edit the manifest is G1's question).
 */
export function fingerprintFor(ctx: GuardContext): Promise<RepoFingerprint> {
  return ctx.memo('fingerprint', async () => {
    const base = await computeFingerprint(ctx.base);
    return mergeFingerprints(base, await prDeclared(ctx));
  });
}
