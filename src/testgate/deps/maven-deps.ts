import type { Revision } from '../../core/revision.js';
import { EGRESS_PORT } from '../../sandbox/index.js';
import { readMavenModules, requiredJava } from '../maven-project.js';
import { DEPS_MOUNT, type DepsPlan, type NoInstall } from './deps-plan.js';
import { hashTexts } from './hash-texts.js';
import { ciJavaVersions, findJdks, pickJdk, type Jdk } from './jdks.js';
import { toolVersion } from './toolchains.js';

/**
 * A Maven build: the machine's `mvn` runs the build once, online through the egress proxy, into a
 * local repository at {@link MAVEN_REPO}; the test runs then use that repository read-only and
 * offline (`-o`). Maven 3.8 reads a read-only local repository offline without trouble: it writes
 * `_remote.repositories`, `*.lastUpdated` and `resolver-status.properties` only when it downloads.
 *
 * The install runs the same lifecycle as the tests (`test`), so that what plugins resolve only when
 * they run is fetched too — Surefire's provider (surefire-junit-platform, …) is resolved only when
 * Surefire has a test class to run; `dependency:go-offline` misses it, and so does
 * `-Dtest=NoSuchTest`, which finds no class and returns before resolving it. A method filter that
 * matches no method (`-Dtest='*#…'`) makes Surefire resolve its provider and start, and run nothing.
 * The build never stops at a module (`-fn`, `maven.compiler.failOnError=false`): a module that does
 * not compile is the test run's to report; the install fails only when Maven could not download an
 * artifact that is not one of the build's own modules.
 *
 * Maven does not read proxy variables: a generated `settings.xml` points it at the egress proxy, and
 * at the operator's mirror when SLOPGATE_MAVEN_MIRROR is set. The Maven wrapper (`mvnw`) would
 * download Maven itself; the machine's `mvn` is used instead, and a different version asked for by
 * `.mvn/wrapper/maven-wrapper.properties` is said in the report.
 */

export const MAVEN_REPO = `${DEPS_MOUNT}/m2`;
export const MAVEN_SETTINGS = `${DEPS_MOUNT}/settings.xml`;
/**
 * The artifactIds of the build's own modules, one a line: no registry has them, and a module that
 * depends on one that did not build says it could not resolve it. (artifactIds alone: a module's
 * groupId is often a `${…}` or inherited.)
 */
export const MAVEN_REACTOR = `${DEPS_MOUNT}/maven-reactor.txt`;
/** The variable the runner reads the settings file from (`mvn -s`). */
export const MAVEN_SETTINGS_ENV = 'SLOPGATE_MAVEN_SETTINGS';

/** What Maven says when it could not get an artifact (only its `[ERROR]` lines are read). */
const RESOLUTION_ERRORS =
  'Could not resolve dependencies|Could not find artifact|Could not transfer|could not be resolved|Failure to find|Non-resolvable|Unresolveable build extension|Failed to read artifact descriptor|Non-parseable POM|Could not collect dependencies';
/** `groupId:artifactId:…` in a Maven message. */
const COORDINATES = '[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+:[A-Za-z0-9_.${}-]+(:[A-Za-z0-9_.${}-]+)*';

/**
 * The Maven fetched from Maven Central when a build refuses the machine's (commons-parent's enforcer
 * asks for `[3.9,)`; plugins declare `requires Maven version 3.9.6`), like GOTOOLCHAIN=auto fetches a
 * newer Go: into the entry, used by the install and the test runs.
 */
export const FETCHED_MAVEN = '3.9.11';
export const MAVEN_HOME = `${DEPS_MOUNT}/maven`;
/** Maven's words when a build does not accept its version. */
const MAVEN_REFUSED = 'Detected Maven Version:? .* is not in the allowed range|requires Maven version [0-9]';

/** Where a resolution error names what failed, up to the end of its line. */
const FRAGMENTS =
  '(Could not find artifact|Failure to find|Could not transfer artifact|Non-resolvable (parent|import) POM|Non-parseable POM|Unresolveable build extension|Failed to read artifact descriptor for|Plugin) [^ ]+.*';

/**
 * The install script (POSIX sh, run under `set -e`): the build, then the verdict. The end of the
 * log is printed; the script fails when an artifact that is not the build's own could not be
 * resolved, or a pom could not be read, and then says which, one `slopgate: Maven: …` line each
 * (what the report quotes).
 */
export function mavenInstallScript(): string {
  const log = '"$TMPDIR/maven-install.log"';
  // Resolution errors, with the project that failed (`on project x`, `for project g:x:jar:1`) cut out.
  const errors = `grep -E '^\\[ERROR\\] .*(${RESOLUTION_ERRORS})' ${log} | sed -E 's/(for|on) project [^ ]+//g'`;
  const own = '"$TMPDIR/maven-own.txt"';
  const dist = `apache-maven-${FETCHED_MAVEN}`;
  return [
    `build() { mvn -B -ntp -s '${MAVEN_SETTINGS}' -fn -Dmaven.compiler.failOnError=false -Dmaven.test.failure.ignore=true '-Dtest=*#slopgateResolvesProvidersOnly' -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false test > ${log} 2>&1 || true; }`,
    'build',
    // The build refuses this machine's Maven (the enforcer's requireMavenVersion, a plugin's prerequisite): Maven from Maven Central, checksums verified.
    `if grep -qE '${MAVEN_REFUSED}' ${log}; then`,
    `  echo "slopgate: the build refuses Maven $(mvn -B -v | head -n 1 | grep -oE '[0-9]+[.][0-9]+[.][0-9]+' | head -n 1); fetching Maven ${FETCHED_MAVEN} from Maven Central"`,
    `  (cd "$TMPDIR" && mvn -B -ntp -C -s '${MAVEN_SETTINGS}' org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy -Dartifact=org.apache.maven:apache-maven:${FETCHED_MAVEN}:tar.gz:bin -DoutputDirectory="$TMPDIR/maven-dist" > "$TMPDIR/maven-fetch.log" 2>&1) || { tail -n 20 "$TMPDIR/maven-fetch.log"; echo "slopgate: Maven: Maven ${FETCHED_MAVEN} could not be fetched from Maven Central"; exit 1; }`,
    `  tar -xzf "$TMPDIR/maven-dist/${dist}-bin.tar.gz" -C '${DEPS_MOUNT}' 2>&1 && mv '${DEPS_MOUNT}/${dist}' '${MAVEN_HOME}'`,
    `  PATH='${MAVEN_HOME}/bin':$PATH; export PATH`,
    '  build',
    'fi',
    `tail -n 30 ${log}`,
    `sed 's/.*/:&:/' '${MAVEN_REACTOR}' > ${own}`,
    // Artifacts named in resolution errors, minus the build's own modules; and errors that name none (a pom Maven cannot read).
    `missing=$(${errors} | grep -oE '${COORDINATES}' | cut -d: -f2 | sort -u | grep -vxF -f '${MAVEN_REACTOR}' || true)`,
    `uncoordinated=$(${errors} | grep -vE '${COORDINATES}' || true)`,
    `if [ -n "$missing$uncoordinated" ]; then`,
    `  ${errors} | grep -oE '${FRAGMENTS}' | sed -E 's/ -> \\[Help [0-9]+\\]$//' | grep -vF -f ${own} | cut -c1-300 | sort -u | head -n 4 | sed 's/^/slopgate: Maven: /' || true`,
    `  echo "slopgate: Maven could not resolve: $(echo $missing | tr ' ' ',')"`,
    '  exit 1',
    'fi',
    // Last, on stderr (which the install's output ends with): the Maven that ran, for the report's toolchain.
    'mvn -B -v 2>/dev/null | head -n 1 >&2',
  ].join('\n');
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The operator's Maven mirror (SLOPGATE_MAVEN_MIRROR): an http(s) URL without credentials, else undefined. */
export function operatorMavenMirror(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = env.SLOPGATE_MAVEN_MIRROR?.trim();
  if (!raw) return undefined;
  try {
    const u = new URL(raw);
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password) return undefined;
    return raw;
  } catch {
    return undefined;
  }
}

/** settings.xml for the install and the test runs: the local repository, the egress proxy, the operator's mirror. */
export function mavenSettings(mirror: string | undefined): string {
  const proxy = (protocol: string) =>
    `    <proxy><id>slopgate-egress-${protocol}</id><active>true</active><protocol>${protocol}</protocol><host>127.0.0.1</host><port>${EGRESS_PORT}</port><nonProxyHosts>localhost|127.0.0.1</nonProxyHosts></proxy>`;
  const mirrors = mirror
    ? `  <mirrors>\n    <mirror><id>slopgate-operator-mirror</id><mirrorOf>*</mirrorOf><url>${xmlEscape(mirror)}</url></mirror>\n  </mirrors>\n`
    : '';
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!-- Written by slopgate for the sandbox: the dependency cache, the egress proxy, the operator mirror. -->',
    '<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">',
    `  <localRepository>${MAVEN_REPO}</localRepository>`,
    '  <interactiveMode>false</interactiveMode>',
    '  <proxies>',
    proxy('http'),
    proxy('https'),
    '  </proxies>',
    `${mirrors}</settings>`,
    '',
  ].join('\n');
}

/** Maven's version from `distributionUrl` in the wrapper's properties. */
export function wrapperMavenVersion(properties: string | null): string | null {
  return /^\s*distributionUrl\s*=.*?apache-maven-(\d+\.\d+\.\d+[\w.-]*?)-bin\.(?:zip|tar\.gz)/m.exec(properties ?? '')?.[1] ?? null;
}

export interface MavenMachine {
  mvn: string | null;
  jdks: Jdk[];
}

let machine: Promise<MavenMachine> | null = null;
/** The machine's Maven and JDKs, once per process. */
export function mavenMachine(): Promise<MavenMachine> {
  machine ??= toolVersion('mvn', ['-v']).then((mvn) => ({ mvn, jdks: findJdks() }));
  return machine;
}

/** Paths of the files that decide a Maven install: every pom (test fixtures aside) and `.mvn/` configuration. */
function mavenInputs(paths: string[], modulePoms: string[]): string[] {
  const poms = paths.filter((p) => /(^|\/)pom\.xml$/.test(p) && !/(^|\/)(src|target)\//.test(p));
  const config = paths.filter((p) => /^\.mvn\/.*\.(?:xml|config|properties)$/.test(p));
  return [...new Set([...poms, ...modulePoms.filter((p) => paths.includes(p)), ...config])].sort();
}

export async function planMaven(rev: Revision, m?: MavenMachine): Promise<DepsPlan | NoInstall | null> {
  if (!(await rev.has('pom.xml'))) return null;
  const { mvn, jdks } = m ?? (await mavenMachine());
  if (!mvn) return { none: 'Maven (mvn) is not installed on this machine' };
  const paths = await rev.paths();
  const modules = await readMavenModules((p) => rev.readText(p));
  const inputs = mavenInputs(
    paths,
    modules.map((x) => x.pom),
  );
  const texts = await rev.readTexts(inputs);
  const notes: string[] = [];
  const workflows = await rev.readTexts(paths.filter((p) => /^\.github\/workflows\/[^/]+\.ya?ml$/.test(p)));
  const ciJava = ciJavaVersions([...workflows.values()]);
  const picked = pickJdk(jdks, requiredJava([...texts].filter(([p]) => p.endsWith('.xml')).map(([, t]) => t)), ciJava);
  if (picked.note) notes.push(picked.note);
  const jdk = picked.jdk;
  const wrapper = wrapperMavenVersion(texts.get('.mvn/wrapper/maven-wrapper.properties') ?? null);
  if (wrapper && wrapper !== mvn)
    notes.push(
      `the Maven wrapper asks for Maven ${wrapper}; the build ran with this machine's Maven ${mvn} (the wrapper would download Maven itself)`,
    );
  const mirror = operatorMavenMirror();
  const reactor = [...new Set(modules.map((x) => x.artifactId).filter(Boolean))].sort();
  const javaEnv: Record<string, string> = jdk ? { JAVA_HOME: jdk.home } : {};
  const toolchain: Record<string, string> = { maven: mvn, ...(jdk ? { java: jdk.version } : {}) };
  return {
    ecosystem: 'maven',
    keyMaterial: `maven=${mvn}\njdk=${jdk ? `${jdk.home} ${jdk.version}` : 'none'}\nmirror=${mirror ?? ''}\n${hashTexts(texts)}`,
    inputs,
    script: mavenInstallScript(),
    // The install runs the build's lifecycle up to `test`: its plugins (exec, antrun, code generators) are the project's code.
    projectCode: "Maven runs the build's plugins while it resolves them",
    files: [
      { path: 'settings.xml', content: mavenSettings(mirror) },
      { path: 'maven-reactor.txt', content: reactor.map((r) => `${r}\n`).join('') },
    ],
    env: javaEnv,
    notes,
    toolchain,
    // A JDK outside /usr (JAVA_HOME=/opt/jdk-21) is mounted read-only like a toolchain.
    ...(jdk && !jdk.home.startsWith('/usr/') ? { hostPaths: [jdk.home] } : {}),
    runEnv: { ...javaEnv, [MAVEN_SETTINGS_ENV]: MAVEN_SETTINGS },
    // The Maven the install fetched when the build refused the machine's; absent otherwise.
    runPath: [`${MAVEN_HOME}/bin`],
  };
}
