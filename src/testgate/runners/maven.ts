import { realpath } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { readCappedTextOr } from '../../core/safe-read.js';
import type { TestOutcome, UnitStatus } from '../../core/suite-result.js';
import { tailOf, shq } from '../../sandbox/index.js';
import { MAVEN_SETTINGS_ENV } from '../deps/maven-deps.js';
import { readMavenModules, type MavenModule } from '../maven-project.js';
import {
  compileErrors,
  isCompileFailure,
  offlineMissing,
  parseMavenLog,
  toolchainProblem,
  type MavenFailure,
  type MavenLog,
} from './maven-log.js';
import { findMavenReports, mavenUnitId, parseMavenTestId, readMavenReports } from './maven-reports.js';
import { missingToolchain, shortMessage, type RunContext, type Runner, type RunnerOutput } from './runner.js';

/**
 * Maven: `mvn test` over the whole reactor, never stopping at a module (`-fn`) and never failing a
 * module for its failing tests (`maven.test.failure.ignore`), so that every module that builds runs
 * its tests. Results come from Surefire's XML reports (maven-reports.ts); a module whose build fails
 * (a compile error, with the file and line of the first one) is a broken unit (maven-log.ts). Tests
 * run offline (`-o`) against the dependency install's local repository, read-only
 * (deps/maven-deps.ts). Re-runs select tests with `-Dtest=Class#method+method`.
 */

/** The command as findings and reports show it: what a developer runs to reproduce. */
export const MAVEN_DISPLAY_COMMAND = 'mvn test';

const LOG = 'maven.log';
/** Offline, batch mode, no transfer progress; tests' own output goes to files beside the reports. */
const FLAGS = '-B -o -ntp -fn -Dmaven.test.failure.ignore=true -Dmaven.test.redirectTestOutputToFile=true';
/** Reports of an earlier run (or committed to the tree) would be read as this run's. */
const CLEAR_REPORTS =
  "find . -name .git -prune -o -type d \\( -name surefire-reports -o -name failsafe-reports \\) -path '*/target/*' -prune -exec rm -rf {} + 2>/dev/null";

function mvnLine(extra: string): string {
  return `${CLEAR_REPORTS}; mvn \${${MAVEN_SETTINGS_ENV}:+-s "$${MAVEN_SETTINGS_ENV}"} ${FLAGS}${extra} test > "$SLOPGATE_OUT/${LOG}" 2>&1`;
}

/** A path the compiler printed, relative to the tree when inside it. */
function inTree(workdir: string, path: string): string | undefined {
  const rel = relative(workdir, path);
  return rel && !rel.startsWith('..') && !rel.startsWith('/') ? rel : undefined;
}

interface Classified {
  units: UnitStatus[];
  /** The machine's problems (JDK, Maven version, an artifact missing offline): Maven's words. */
  environment: string[];
  /** One per module the machine cannot build: its tests are not run here, at the base or with the change. */
  notes: string[];
  /** Some failure was a compile error. */
  compile: boolean;
}

function describeMissing(artifacts: string[]): string {
  const shown = artifacts.slice(0, 3).join(', ') + (artifacts.length > 3 ? ` and ${artifacts.length - 3} more` : '');
  return `Maven, running offline, does not have ${shown}: the dependency install did not fetch it (it is resolved only while the build runs), so the suite cannot run here; set tests.command to run it another way`;
}

/** One unit per module Maven built; a failed one is broken, with what failed and where. */
function classify(log: MavenLog, modules: MavenModule[], workdir: string): Classified {
  const dirOf = new Map(modules.map((m) => [m.artifactId, m.dir]));
  const units: UnitStatus[] = [];
  const environment: string[] = [];
  const notes: string[] = [];
  let compile = false;
  for (const p of log.projects) {
    const dir = dirOf.get(p.artifactId) ?? p.artifactId;
    const id = mavenUnitId(dir);
    const unit: UnitStatus = { id, kind: 'module', group: id, status: 'ok', file: dir };
    if (p.failure) {
      const d = describeFailure(p.failure, workdir, dirOf);
      Object.assign(unit, { status: 'broken' }, d.unit);
      if (d.environment) {
        environment.push(d.environment);
        notes.push(`Maven module \`${dir}\` is not tested on this machine: ${d.environment}`);
      }
      if (d.compile) compile = true;
    }
    units.push(unit);
  }
  return { units, environment: [...new Set(environment)], notes, compile };
}

interface Described {
  unit: Pick<UnitStatus, 'file' | 'line' | 'message'>;
  /** The machine's problem, not the code's (a JDK or Maven version, an artifact missing offline). */
  environment?: string;
  /** The code does not compile. */
  compile?: boolean;
}

function describeFailure(f: MavenFailure, workdir: string, dirOf: Map<string, string>): Described {
  const toolchain = toolchainProblem(f.message);
  if (toolchain)
    return {
      unit: { message: shortMessage(f.message, 8, 1000) ?? toolchain },
      environment: `the build does not work with this machine's JDK or Maven: ${toolchain}`,
    };
  if (isCompileFailure(f)) {
    const errors = compileErrors(f.message);
    const first = errors[0];
    const file = first ? inTree(workdir, first.path) : undefined;
    const line = first?.line;
    const listed = errors
      .slice(0, 6)
      .map((e) => `${inTree(workdir, e.path) ?? e.path}:${e.line}: ${e.text}`)
      .join('\n');
    return {
      unit: { ...(file && line ? { file, line } : {}), message: listed || (shortMessage(f.message, 8, 1000) ?? 'compilation failure') },
      compile: true,
    };
  }
  const goal = f.goal ? `${f.goal}: ` : '';
  const unit = { message: shortMessage(`${goal}${f.message}`, 8, 1000) ?? 'the module failed to build' };
  const missing = offlineMissing(f.message);
  if (missing.length === 0) return { unit };
  const artifactOf = (a: string) => a.split(':')[1] ?? '';
  const outside = missing.filter((a) => !dirOf.has(artifactOf(a)));
  if (outside.length) return { unit, environment: describeMissing(outside) };
  const names = missing.map((a) => `\`${dirOf.get(artifactOf(a)) ?? a}\``).join(', ');
  return { unit: { message: `not built: it depends on module ${names} of this build, which does not build` } };
}

async function runMaven(ctx: RunContext, extra: string, notes: string[]): Promise<RunnerOutput> {
  const r = await ctx.exec(mvnLine(extra));
  const text = (await readCappedTextOr(join(ctx.outDir, LOG))) ?? '';
  const out: RunnerOutput = {
    tests: [],
    units: [],
    exitCode: r.exitCode,
    outputTail: tailOf(text.trim() || `${r.stdout}\n${r.stderr}`.trim()),
    ...(r.killedBy ? { killedBy: r.killedBy } : {}),
    ...(notes.length ? { notes } : {}),
  };
  const missing = missingToolchain({ ...r, stdout: text }, 'mvn', [/^(?:\S+: )?(?:\d+: )?mvn: (?:command )?not found/m]);
  if (missing) return { ...out, missingToolchain: missing };
  if (r.killedBy) return out;
  const log = parseMavenLog(text);
  // The poms of the tree the run used; a module dir that is a symbolic link out of the tree is not followed.
  const root = await realpath(ctx.workdir);
  const modules = await readMavenModules(async (p) => {
    const abs = await realpath(join(ctx.workdir, p)).catch(() => null);
    return abs && inTree(root, abs) ? readCappedTextOr(abs, 4 << 20) : null;
  });
  const { units, environment, notes: moduleNotes, compile } = classify(log, modules, ctx.workdir);
  const tests = await readMavenReports(ctx.workdir, await findMavenReports(ctx.workdir));
  // Nothing ran, and what stopped it is the machine's (or a plugin's, before any test): not a result.
  const failed = units.find((u) => u.status === 'broken');
  if (tests.length === 0 && !compile && failed) {
    const why = environment[0] ?? `the Maven build stops before any test runs: ${failed.message ?? 'a module failed'}`;
    return { ...out, missingToolchain: why };
  }
  // -fn makes Maven exit 0 even when it could not read the poms: no project built is no result.
  if (log.projects.length === 0 && log.buildError) return { ...out, exitCode: r.exitCode === 0 ? 1 : r.exitCode };
  const noTests = tests.length === 0 && !failed;
  const allNotes = [...notes, ...moduleNotes];
  return { ...out, tests, units, ...(allNotes.length ? { notes: allNotes } : {}), ...(noTests ? { noTests } : {}) };
}

/** `-Dtest=` for re-runs: `Class#a+b,Other#c`, by simple class name; parameterised names match by prefix. */
export function surefireSelection(tests: TestOutcome[]): { filter: string; modules: string[] } {
  const byClass = new Map<string, Set<string>>();
  const modules = new Set<string>();
  for (const t of tests) {
    const p = parseMavenTestId(t.id);
    if (!p) continue;
    modules.add(p.module);
    const simple = p.classname.slice(p.classname.lastIndexOf('.') + 1);
    const methods = byClass.get(simple) ?? new Set<string>();
    const method = /^[\p{L}_$][\p{L}\p{N}_$]*/u.exec(p.name)?.[0];
    // A display name that is not a method name: the whole class runs again.
    if (!method) methods.add('*');
    else methods.add(method === p.name ? method : `${method}*`);
    byClass.set(simple, methods);
  }
  const filter = [...byClass]
    .map(([cls, methods]) => (methods.has('*') ? cls : `${cls}#${[...methods].join('+')}`))
    .sort()
    .join(',');
  return { filter, modules: [...modules].sort() };
}

export function mavenRunner(notes: string[] = []): Runner {
  return {
    id: 'maven',
    command: mvnLine(''),
    displayCommand: MAVEN_DISPLAY_COMMAND,
    run: (ctx) => runMaven(ctx, '', notes),
    rerun: (ctx, tests) => {
      const { filter, modules } = surefireSelection(tests);
      // -am: a module's reactor dependencies must be built in the same run (nothing is installed).
      const projects = modules.length && !modules.includes('.') ? ` -pl ${shq(modules.join(','))} -am` : '';
      return runMaven(ctx, `${projects} ${shq(`-Dtest=${filter}`)} -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false`, notes);
    },
  };
}
