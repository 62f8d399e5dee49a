import { isRecord } from '../../core/is-record.js';
import { callsOfCommand } from '../../repo/ci/command-site.js';
import { commandWords, segments } from '../../repo/ci/command-words.js';
import { isWorkflowPath, workflowSites } from '../../repo/ci/workflow-sites.js';

/**
 * Which builds a repository runs, read from its base tree: the `run:` lines of its GitHub Actions
 * workflows (directly, or through a package script they call), the build command of a deploy
 * configuration (`vercel.json` `buildCommand`, `netlify.toml` `[build] command`), and, when nothing
 * else names one, package.json's `build` script. Pure: it reads texts and runs nothing.
 */

export type BuildEcosystem = 'node' | 'go' | 'cargo' | 'maven' | 'python';

export interface BuildCommand {
  eco: BuildEcosystem;
  /** The command as a developer types it (`npm run build`, `go build ./...`). */
  command: string;
  /** Where it was read: `.github/workflows/ci.yml:14`, `vercel.json:3`, or `package.json: "build": …`. */
  where: string;
  /** CI or a deploy runs it; false for a package.json `build` script that nothing is known to run. */
  inCi: boolean;
  /** Why a failure of it does not fail the pull request's checks (discovery's `lenient`), naming the step. */
  lenient?: string;
  /** It only type-checks or compiles TypeScript (`tsc`, `vue-tsc`, or a script that runs only them). */
  tsc?: boolean;
}

/** The base files this discovery reads besides the workflows. */
export const BUILD_FILES = ['package.json', 'vercel.json', 'netlify.toml'];

/** Node build tools, with the subcommand that builds (null: the tool builds when run). */
const NODE_TOOLS: Record<string, string | null> = {
  vite: 'build',
  next: 'build',
  nuxt: 'build',
  nuxi: 'build',
  astro: 'build',
  ng: 'build',
  tsc: null,
  'vue-tsc': null,
  webpack: null,
  rollup: null,
  tsup: null,
};

/** Words the sandbox may run as they are written (no shell expansion, no quoting needed). */
const PLAIN = /^[\w./:=,@%+-]+$/;

/** Options that keep a tool running instead of building once. */
const WATCH = new Set(['-w', '--watch', 'dev', 'serve', 'start']);

const basename = (w: string) => w.replace(/^.*\//, '');

type Found = Pick<BuildCommand, 'eco' | 'command' | 'tsc'>;

/** The build one simple command runs, if it is one of the builds this knows. */
export function buildOfCommand(segment: string, scripts: Readonly<Record<string, string>>): Found | null {
  const words = commandWords(segment);
  const tool = basename(words[0] ?? '');
  const rest = words.slice(1);
  const plain = words.every((w) => PLAIN.test(w));
  if (tool in NODE_TOOLS) {
    const sub = NODE_TOOLS[tool];
    if (sub ? rest[0] !== sub : rest.some((w) => WATCH.has(w))) return null;
    return plain ? { eco: 'node', command: [tool, ...rest].join(' '), ...(tool.endsWith('tsc') ? { tsc: true } : {}) } : null;
  }
  if (tool === 'go' && rest[0] === 'build') return { eco: 'go', command: plain ? words.join(' ') : 'go build ./...' };
  if (tool === 'cargo') {
    const args = rest[0]?.startsWith('+') ? rest.slice(1) : rest;
    if (args[0] === 'build' || args[0] === 'b') return { eco: 'cargo', command: plain ? ['cargo', ...args].join(' ') : 'cargo build' };
    return null;
  }
  if ((tool === 'mvn' || tool === 'mvnw') && rest.some((w) => ['compile', 'package', 'verify', 'install'].includes(w)))
    return { eco: 'maven', command: plain ? words.join(' ') : 'mvn compile' };
  // `python -m build` (commandWords drops `python -m`) and its script
  if (tool === 'build' || tool === 'pyproject-build') return { eco: 'python', command: 'python -m build' };
  for (const call of callsOfCommand(segment)) {
    const name = call.startsWith('npm:') ? call.slice(4) : null;
    const script = name === null ? undefined : scripts[name];
    if (name === null || script === undefined) continue;
    const inner = segments(script).map((s) => buildOfCommand(s, {}));
    // a script named for the build, or one that only builds (`lint: eslint . && tsc --noEmit` is a lint, not a build)
    const builds = name === 'build' || /^build[:-]/.test(name) || (inner.length > 0 && inner.every((b) => b?.eco === 'node'));
    if (!builds) continue;
    const onlyTsc = inner.length > 0 && inner.every((b) => b?.tsc === true);
    return { eco: 'node', command: `npm run ${name}`, ...(onlyTsc ? { tsc: true } : {}) };
  }
  return null;
}

/** The 1-based line of `text` holding the start of `segment`, when it can be found. */
function lineOf(text: string, segment: string): number | null {
  const needle = segment.trim().slice(0, 60);
  const lines = text.split(/\r?\n/);
  const i = lines.findIndex((l) => l.includes(needle));
  if (i >= 0) return i + 1;
  // a line joined from `\`-continued lines: its first two words
  const head = needle.split(/\s+/).slice(0, 2).join(' ');
  const j = lines.findIndex((l) => l.includes(head));
  return j >= 0 ? j + 1 : null;
}

const at = (path: string, text: string, segment: string) => {
  const n = lineOf(text, segment);
  return n === null ? path : `${path}:${n}`;
};

/** package.json's scripts (empty when there are none or it does not parse). */
export function packageScripts(text: string | undefined): Record<string, string> {
  if (text === undefined) return {};
  try {
    const doc: unknown = JSON.parse(text);
    if (!isRecord(doc) || !isRecord(doc.scripts)) return {};
    return Object.fromEntries(Object.entries(doc.scripts).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/** The `[build]` table's `command` of a netlify.toml, with its line. */
function netlifyCommand(text: string): { command: string; line: number } | null {
  let inBuild = false;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (l.startsWith('[')) inBuild = /^\[\s*build\s*\]$/.test(l);
    const m = inBuild ? /^command\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(l) : null;
    if (m) return { command: m[1] ?? m[2] ?? '', line: i + 1 };
  }
  return null;
}

/** npm's placeholder for a package without tests. */
const NO_TESTS = /^echo\s+["']?Error: no test specified["']?\s*&&\s*exit\s+1$/;

/** Rank of a build when two name the same command: a strict CI step, then a lenient one, then none. */
const rank = (b: BuildCommand) => (b.inCi && !b.lenient ? 0 : b.inCi ? 1 : 2);

/**
 * Every build the texts name, one per command (the strictest place that runs it). `files` maps base
 * paths to their text: the workflows and {@link BUILD_FILES}.
 */
export function discoverBuilds(files: ReadonlyMap<string, string>, baseBranch?: string): BuildCommand[] {
  const scripts = packageScripts(files.get('package.json'));
  const found: BuildCommand[] = [];
  const add = (text: string, path: string, seg: string, lenient?: string) => {
    const b = buildOfCommand(seg, scripts);
    if (b) found.push({ ...b, where: at(path, text, seg), inCi: true, ...(lenient ? { lenient } : {}) });
  };
  for (const [path, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!isWorkflowPath(path)) continue;
    for (const site of workflowSites(path, text, baseBranch)) for (const seg of segments(site.line)) add(text, path, seg, site.lenient);
  }
  const vercel = files.get('vercel.json');
  if (vercel !== undefined) {
    try {
      const doc: unknown = JSON.parse(vercel);
      if (isRecord(doc) && typeof doc.buildCommand === 'string')
        for (const seg of segments(doc.buildCommand)) add(vercel, 'vercel.json', seg);
    } catch {
      // not JSON: no build read from it
    }
  }
  const netlify = files.get('netlify.toml');
  const nc = netlify === undefined ? null : netlifyCommand(netlify);
  if (nc) {
    for (const seg of segments(nc.command)) {
      const b = buildOfCommand(seg, scripts);
      if (b) found.push({ ...b, where: `netlify.toml:${nc.line}`, inCi: true });
    }
  }
  // package.json's build that nothing is known to run: only for a project without tests (G8 runs those)
  const test = scripts.test;
  if (!found.some((b) => b.eco === 'node') && scripts.build !== undefined && (test === undefined || NO_TESTS.test(test.trim())))
    found.push({
      eco: 'node',
      command: 'npm run build',
      where: `package.json: "build": ${JSON.stringify(scripts.build).slice(0, 120)}`,
      inCi: false,
    });
  const best = new Map<string, BuildCommand>();
  for (const b of found) {
    const key = `${b.eco} ${b.command}`;
    const prev = best.get(key);
    if (!prev || rank(b) < rank(prev)) best.set(key, b);
  }
  return [...best.values()];
}
