/**
 * What Maven's batch-mode log says about each project of the build: which projects it built (the
 * `--< groupId:artifactId >--` headers), and for each failed one the goal that failed and Maven's
 * message (`[ERROR] Failed to execute goal … on project <artifactId>: …` and its `[ERROR]` lines),
 * including javac's or kotlinc's `file:[line,col] message`. Also what stops the build before any
 * project (an unreadable pom).
 */

export interface MavenFailure {
  /** `org.apache.maven.plugins:maven-compiler-plugin:3.13.0:testCompile`, when a plugin goal failed. */
  goal?: string;
  /** Maven's message, `[ERROR] ` prefixes removed. */
  message: string;
}

export interface MavenProjectLog {
  groupId: string;
  artifactId: string;
  failure?: MavenFailure;
}

export interface MavenLog {
  /** Projects in build order, as the headers name them. */
  projects: MavenProjectLog[];
  /** The build did not start (`The build could not read N projects`, an unparseable pom): Maven's words. */
  buildError?: string;
}

const HEADER = /^\[INFO\] -+< ([^:\s>]+):([^:\s>]+) >-+\s*$/;
const FAILED = /^\[ERROR\] Failed to execute goal (?:(\S+) \([^)]*\) )?on project ([^:\s]+): ?(.*)$/;
const HELP = /\s*-> \[Help \d+\]\s*$/;

/** Strips `[ERROR] ` and ANSI colour codes. */
function body(line: string): string {
  return line.replace(/\x1b\[[0-9;]*m/g, '').replace(/^\[ERROR\] ?/, '');
}

export function parseMavenLog(log: string): MavenLog {
  const lines = log.split('\n').map((l) => l.replace(/\r$/, ''));
  const projects = new Map<string, MavenProjectLog>();
  const order: MavenProjectLog[] = [];
  let buildError: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = HEADER.exec(line);
    if (header) {
      const p: MavenProjectLog = { groupId: header[1]!, artifactId: header[2]! };
      if (!projects.has(p.artifactId)) {
        projects.set(p.artifactId, p);
        order.push(p);
      }
      continue;
    }
    const failed = FAILED.exec(line);
    if (failed) {
      const parts = [failed[3]!.replace(HELP, '')];
      let j = i + 1;
      if (!HELP.test(line)) {
        for (; j < lines.length; j++) {
          const next = lines[j]!;
          if (!next.startsWith('[ERROR]') || FAILED.test(next) || /^\[ERROR\]\s*$/.test(next)) break;
          parts.push(body(next).replace(HELP, ''));
          if (HELP.test(next)) {
            j++;
            break;
          }
        }
      }
      i = j - 1;
      const artifactId = failed[2]!;
      const p = projects.get(artifactId) ?? { groupId: '', artifactId };
      if (!projects.has(artifactId)) {
        projects.set(artifactId, p);
        order.push(p);
      }
      p.failure ??= { ...(failed[1] ? { goal: failed[1] } : {}), message: parts.join('\n').trim() };
      continue;
    }
    if (!buildError && /^\[ERROR\] (?:The build could not read \d+ projects?|Non-parseable POM|Non-readable POM)/.test(line)) {
      const parts: string[] = [];
      for (let j = i; j < lines.length && parts.length < 12 && lines[j]!.startsWith('[ERROR]'); j++) {
        const b = body(lines[j]!).replace(HELP, '');
        if (b.trim()) parts.push(b);
      }
      buildError = parts.join('\n');
    }
  }
  return { projects: order, ...(buildError ? { buildError } : {}) };
}

/** A compiler's message position: `/abs/File.java:[12,5] msg`, `file:///abs/File.kt:12:5 msg`, `e: /abs/File.kt: (12, 5): msg`. */
const POSITION = /((?:file:\/\/)?\/[^\s:]+?\.(?:java|kt|kts|groovy|scala)):?\s*[[(]?(\d+)(?:[,:]\s*\d+)?[\])]?:?\s*(.*)$/;

export interface CompileError {
  /** Absolute path as the compiler printed it (`file://` removed). */
  path: string;
  line: number;
  text: string;
}

/**
 * The compile errors in a failure's message, in order; javac's indented detail lines stay with their
 * error, on the same line: `cannot find symbol (symbol: method onex(); location: class a.A)`.
 */
export function compileErrors(message: string): CompileError[] {
  const out: { error: CompileError; details: string[] }[] = [];
  for (const line of message.split('\n')) {
    const m = POSITION.exec(line);
    if (m) out.push({ error: { path: m[1]!.replace(/^file:\/\//, ''), line: Number(m[2]), text: m[3]!.trim() }, details: [] });
    else if (/^\s+\S/.test(line)) out.at(-1)?.details.push(line.trim().replace(/\s+/g, ' '));
  }
  return out.map(({ error, details }) => (details.length ? { ...error, text: `${error.text} (${details.join('; ')})` } : error));
}

/** A goal of a compiler plugin (maven-compiler-plugin, kotlin-maven-plugin, gmavenplus, scala-maven-plugin) or a compilation failure. */
export function isCompileFailure(f: MavenFailure): boolean {
  return (
    /(?:compiler|kotlin|gmavenplus|groovy|scala)[\w-]*-plugin:[^:]+:(?:compile|testCompile|test-compile|compileTests)$/.test(
      f.goal ?? '',
    ) || /^Compilation failure|COMPILATION ERROR/.test(f.message)
  );
}

/** Artifacts Maven could not get while offline (`… has not been downloaded from it before`, `Cannot access … in offline mode`). */
export function offlineMissing(message: string): string[] {
  const out = new Set<string>();
  for (const m of message.matchAll(/the artifact (\S+?) has not been downloaded from it before/g)) out.add(m[1]!);
  for (const m of message.matchAll(/(?:Could not find artifact|Failure to find) (\S+)/g)) out.add(m[1]!);
  if (out.size === 0 && message.includes('in offline mode')) {
    for (const m of message.matchAll(/\b([\w.-]+:[\w.-]+:[\w.-]+(?::[\w.-]+)*)\b/g)) out.add(m[1]!);
  }
  return [...out];
}

/**
 * A failure that is the machine's, not the code's: a JDK or Maven version the build does not accept,
 * as the compiler, a plugin or the enforcer says it. Returns Maven's own line, or undefined.
 */
export function toolchainProblem(message: string): string | undefined {
  const patterns = [
    /(?:error: )?release version \d+ not supported/,
    /invalid (?:target|source) release: \S+/,
    /has been compiled by a more recent version of the Java Runtime[^\n]*/,
    // The build's own compiler (an old javac pulled in as a plugin dependency) cannot read this JDK's classes.
    /class file has wrong version \d+\.\d+, should be \d+\.\d+/,
    /UnsupportedClassVersionError[^\n]*/,
    /Detected JDK [Vv]ersion [^\n]+ is not in the allowed range[^\n]*/,
    /Detected Maven Version:? [^\n]+ is not in the allowed range[^\n]*/,
    /requires Maven version \S+/,
    /RequireJavaVersion failed[^\n]*/,
  ];
  for (const p of patterns) {
    const m = p.exec(message);
    if (m) return m[0].trim().slice(0, 300);
  }
  return undefined;
}
