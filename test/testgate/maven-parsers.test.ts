import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEPS_MOUNT } from '../../src/testgate/deps/deps-plan.js';
import { ciJavaVersions, pickJdk, type Jdk } from '../../src/testgate/deps/jdks.js';
import {
  FETCHED_MAVEN,
  mavenInstallScript,
  mavenSettings,
  operatorMavenMirror,
  wrapperMavenVersion,
} from '../../src/testgate/deps/maven-deps.js';
import { readMavenModules, requiredJava } from '../../src/testgate/maven-project.js';
import { gradleSkip } from '../../src/testgate/runners/gradle.js';
import { compileErrors, isCompileFailure, offlineMissing, parseMavenLog, toolchainProblem } from '../../src/testgate/runners/maven-log.js';
import { findMavenReports, parseMavenTestId, readMavenReports } from '../../src/testgate/runners/maven-reports.js';
import { surefireSelection } from '../../src/testgate/runners/maven.js';
import { registryHosts } from '../../src/sandbox/egress/registry-hosts.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'slopgate-maven-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Maven 3.8.7's own output (`mvn -B -o -fn test`) for a reactor whose first module does not compile. */
const FAILED_LOG = `[INFO] Scanning for projects...
[INFO] ------------------------------------------------------------------------
[INFO] Reactor Build Order:
[INFO] ----------------------------< demo:parent >-----------------------------
[INFO] Building parent 1.0                                                [1/3]
[INFO] --------------------------------[ pom ]---------------------------------
[INFO] -----------------------------< demo:mod-a >-----------------------------
[INFO] Building mod-a 1.0                                                 [2/3]
[INFO] --- maven-compiler-plugin:3.13.0:compile (default-compile) @ mod-a ---
[INFO] -------------------------------------------------------------
[ERROR] COMPILATION ERROR : 
[INFO] -------------------------------------------------------------
[ERROR] /w/a/src/main/java/a/A.java:[1,62] cannot find symbol
  symbol:   variable x
  location: class a.A
[INFO] 1 error
[INFO] -----------------------------< demo:mod-b >-----------------------------
[INFO] Building mod-b 1.0                                                 [3/3]
[INFO] Reactor Summary for parent 1.0:
[INFO] parent ............................................. SUCCESS [  0.001 s]
[INFO] mod-a .............................................. FAILURE [  5.543 s]
[INFO] mod-b .............................................. FAILURE [  0.045 s]
[INFO] BUILD FAILURE
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile (default-compile) on project mod-a: Compilation failure
[ERROR] /w/a/src/main/java/a/A.java:[1,62] cannot find symbol
[ERROR]   symbol:   variable x
[ERROR]   location: class a.A
[ERROR] -> [Help 1]
[ERROR] Failed to execute goal on project mod-b: Could not resolve dependencies for project demo:mod-b:jar:1.0: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact demo:mod-a:jar:1.0 has not been downloaded from it before. -> [Help 2]
[ERROR] 
[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.
[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoFailureException
`;

describe('Maven log', () => {
  it('names every project built and, for each failed one, the goal and Maven’s message', () => {
    const log = parseMavenLog(FAILED_LOG);
    expect(log.projects.map((p) => [p.artifactId, p.failure?.goal ?? null])).toEqual([
      ['parent', null],
      ['mod-a', 'org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile'],
      ['mod-b', null],
    ]);
    const a = log.projects[1]!.failure!;
    expect(isCompileFailure(a)).toBe(true);
    expect(compileErrors(a.message)).toEqual([
      { path: '/w/a/src/main/java/a/A.java', line: 1, text: 'cannot find symbol (symbol: variable x; location: class a.A)' },
    ]);
    const b = log.projects[2]!.failure!;
    expect(isCompileFailure(b)).toBe(false);
    expect(b.message).not.toContain('[Help');
    expect(offlineMissing(b.message)).toEqual(['demo:mod-a:jar:1.0']);
  });

  it('reads kotlinc positions and a pom Maven cannot read', () => {
    expect(compileErrors('file:///w/src/test/kotlin/x/XTest.kt:12:5 Unresolved reference: foo')[0]).toMatchObject({
      path: '/w/src/test/kotlin/x/XTest.kt',
      line: 12,
    });
    const log = parseMavenLog(
      '[ERROR] [ERROR] Some problems were encountered while processing the POMs:\n[ERROR] The build could not read 1 project -> [Help 1]\n[ERROR]   \n[ERROR]   The project demo:x:1.0 (/w/pom.xml) has 1 error\n[ERROR]     Non-parseable POM /w/pom.xml: end tag name </dependency> must match start tag name <version> @ line 9\n',
    );
    expect(log.projects).toEqual([]);
    expect(log.buildError).toMatch(/The build could not read 1 project[\s\S]*Non-parseable POM/);
  });

  it('tells the machine’s JDK or Maven version from the code’s problems', () => {
    expect(toolchainProblem('Fatal error compiling: error: release version 21 not supported')).toBe(
      'error: release version 21 not supported',
    );
    expect(
      toolchainProblem(
        'Rule 1: org.apache.maven.enforcer.rules.version.RequireJavaVersion failed with message:\nDetected JDK version 17.0.15 (JAVA_HOME=/usr/lib/jvm/x) is not in the allowed range [21,).',
      ),
    ).toMatch(/^Detected JDK version 17.0.15 .*is not in the allowed range \[21,\)/);
    expect(toolchainProblem('Compilation failure\n/w/A.java:[3,1] cannot find symbol')).toBeUndefined();
  });
});

describe('Surefire reports', () => {
  it('become java:<module>:<class>#<name> outcomes; symlinked report dirs are not followed', async () => {
    const w = tmp();
    const report = (cls: string, cases: string) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="${cls}" tests="2">${cases}</testsuite>\n`;
    mkdirSync(join(w, 'core/target/surefire-reports'), { recursive: true });
    mkdirSync(join(w, 'core/src/test/java/org/x'), { recursive: true });
    writeFileSync(join(w, 'core/src/test/java/org/x/CalcTest.java'), 'class CalcTest {}');
    writeFileSync(
      join(w, 'core/target/surefire-reports/TEST-org.x.CalcTest.xml'),
      report(
        'org.x.CalcTest',
        '<testcase name="adds" classname="org.x.CalcTest"/><testcase name="positive(int)[2]" classname="org.x.CalcTest"><failure message="expected: &lt;1&gt; but was: &lt;2&gt;" type="org.opentest4j.AssertionFailedError">trace</failure></testcase>',
      ),
    );
    mkdirSync(join(w, 'target/surefire-reports'), { recursive: true });
    writeFileSync(
      join(w, 'target/surefire-reports/TEST-RootTest.xml'),
      report('RootTest', '<testcase name="ok" classname="RootTest"><skipped/></testcase>'),
    );
    // A PR's tree pointing a report dir at a directory outside it: never read.
    const outside = tmp();
    mkdirSync(join(outside, 'surefire-reports'));
    writeFileSync(join(outside, 'surefire-reports/TEST-Evil.xml'), report('Evil', '<testcase name="x" classname="Evil"/>'));
    mkdirSync(join(w, 'evil'));
    symlinkSync(outside, join(w, 'evil/target'));
    const files = await findMavenReports(w);
    expect(files.map((f) => f.module)).toEqual(['core', '.']);
    const tests = await readMavenReports(w, files);
    expect(tests).toEqual([
      { id: 'java:core:org.x.CalcTest#adds', status: 'passed', unit: 'maven:core', file: 'core/src/test/java/org/x/CalcTest.java' },
      {
        id: 'java:core:org.x.CalcTest#positive(int)[2]',
        status: 'failed',
        unit: 'maven:core',
        file: 'core/src/test/java/org/x/CalcTest.java',
        message: 'expected: <1> but was: <2>\ntrace',
      },
      { id: 'java:RootTest#ok', status: 'skipped', unit: 'maven:.' },
    ]);
  });

  it('re-runs select by simple class name, methods joined with +, parameterised ones by prefix', () => {
    expect(parseMavenTestId('java:core:org.x.CalcTest#positive(int)[2]')).toEqual({
      module: 'core',
      classname: 'org.x.CalcTest',
      name: 'positive(int)[2]',
    });
    expect(parseMavenTestId('java:RootTest#ok')).toEqual({ module: '.', classname: 'RootTest', name: 'ok' });
    const t = (id: string) => ({ id, status: 'failed' as const, unit: 'x' });
    expect(
      surefireSelection([
        t('java:core:org.x.CalcTest#adds'),
        t('java:core:org.x.CalcTest#positive(int)[2]'),
        t('java:api:org.y.Outer$InnerTest#works'),
        t('java:api:org.y.PhrasedTest#1 + 1 = 2'),
      ]),
    ).toEqual({ filter: 'CalcTest#adds+positive*,Outer$InnerTest#works,PhrasedTest', modules: ['api', 'core'] });
  });
});

describe('Maven project', () => {
  it('walks <modules> (profiles too) from the root pom, never out of the tree', async () => {
    const files: Record<string, string> = {
      'pom.xml':
        '<project><groupId>g</groupId><artifactId>root</artifactId><modules><module>core</module><module>../escape</module></modules><profiles><profile><modules><module>extra/pom-alt.xml</module></modules></profile></profiles></project>',
      'core/pom.xml': '<project><parent><groupId>g</groupId></parent><artifactId>core</artifactId></project>',
      'extra/pom-alt.xml': '<project><groupId>h</groupId><artifactId>extra</artifactId></project>',
    };
    const modules = await readMavenModules((p) => Promise.resolve(files[p] ?? null));
    expect(modules).toEqual([
      { dir: '.', pom: 'pom.xml', groupId: 'g', artifactId: 'root' },
      { dir: 'core', pom: 'core/pom.xml', groupId: 'g', artifactId: 'core' },
      { dir: 'extra', pom: 'extra/pom-alt.xml', groupId: 'h', artifactId: 'extra' },
    ]);
  });

  it('reads the Java release a build asks for and picks a JDK that fits', () => {
    expect(requiredJava(['<maven.compiler.release>8</maven.compiler.release><release>11</release>'])).toEqual({ min: 11 });
    expect(requiredJava(['<requireJavaVersion><version>[17,22)</version></requireJavaVersion>'])).toEqual({ min: 17, below: 22 });
    expect(requiredJava(['<maven.compiler.source>1.8</maven.compiler.source><java.version>${x}</java.version>'])).toEqual({ min: 8 });
    const jdk = (major: number): Jdk => ({ home: `/jdk${major}`, version: `${major}.0.1`, major });
    expect(pickJdk([jdk(17), jdk(25)], { min: 11 }).jdk?.major).toBe(17);
    expect(pickJdk([jdk(17), jdk(25), jdk(21)], { min: 21 }).jdk?.major).toBe(21);
    const none = pickJdk([jdk(17)], { min: 21 });
    expect(none.jdk?.major).toBe(17);
    expect(none.note).toMatch(/asks for a JDK 21 or newer; this machine has 17\.0\.1, so JDK 17\.0\.1 was used/);
    // CI's Java versions come next: one the machine has is used; none, and the report says so.
    expect(pickJdk([jdk(17), jdk(11)], {}, [11]).jdk?.major).toBe(11);
    expect(pickJdk([jdk(17), jdk(25)], { min: 8 }, [8])).toEqual({
      jdk: jdk(17),
      note: 'CI sets up Java 8; this machine has 17.0.1, 25.0.1, so JDK 17.0.1 was used',
    });
    expect(
      ciJavaVersions([
        'matrix:\n  java: [ 17, 21 ]\n  include:\n    - java: 11\nsteps:\n  - with:\n      java-version: ${{ matrix.java }}\n',
        "      java-version: '1.8' # LTS\n",
      ]).sort((a, b) => a - b),
    ).toEqual([8, 11, 17, 21]);
  });

  it('settings point Maven at the sandbox proxy; the operator mirror is used only without credentials, and allowed through', () => {
    const plain = mavenSettings(undefined);
    expect(plain).toContain(`<localRepository>${DEPS_MOUNT}/m2</localRepository>`);
    expect(plain).toMatch(/<protocol>https<\/protocol><host>127\.0\.0\.1<\/host><port>3128<\/port>/);
    expect(plain).not.toContain('<mirrors>');
    expect(mavenSettings('https://nexus.example.com/repo?a=1&b=2')).toContain(
      '<mirrorOf>*</mirrorOf><url>https://nexus.example.com/repo?a=1&amp;b=2</url>',
    );
    expect(operatorMavenMirror({ SLOPGATE_MAVEN_MIRROR: 'https://user:pw@nexus.example.com/' })).toBeUndefined();
    expect(registryHosts({ SLOPGATE_MAVEN_MIRROR: 'https://nexus.example.com/repository/maven/' })).toContain('nexus.example.com');
    expect(
      wrapperMavenVersion(
        'distributionUrl=https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/3.9.6/apache-maven-3.9.6-bin.zip\n',
      ),
    ).toBe('3.9.6');
  });

  it('a Gradle build is skipped naming the hosts it needs and both ways to run it', () => {
    expect(gradleSkip(['README.md'])).toBeNull();
    const reason = gradleSkip(['build.gradle.kts', 'gradlew', 'settings.gradle.kts'])!;
    expect(reason).toMatch(/^Gradle build \(build\.gradle\.kts, settings\.gradle\.kts, gradlew\)/);
    expect(reason).toContain('services.gradle.org');
    expect(reason).toContain('SLOPGATE_EGRESS_ALLOW');
    expect(reason).toContain('tests.command');
  });
});

describe('the install script’s verdict', () => {
  /**
   * Runs the script under `set -e`, as the install does, with a stand-in `mvn` that prints `log`; its
   * `dependency:copy` puts `tarball` (a Maven distribution) where it is asked to.
   */
  function verdict(log: string, reactor: string[], tarball?: string): { code: number | null; out: string; err: string; deps: string } {
    const d = tmp();
    mkdirSync(join(d, 'bin'));
    mkdirSync(join(d, 'deps'));
    mkdirSync(join(d, 'tmp'));
    writeFileSync(join(d, 'log.txt'), log);
    writeFileSync(
      join(d, 'bin/mvn'),
      [
        '#!/bin/sh',
        'case "$*" in',
        '  *" -v"*) echo "Apache Maven 3.8.7";;',
        `  *dependency-plugin*) for a in "$@"; do case "$a" in -DoutputDirectory=*) mkdir -p "\${a#*=}"; cp '${tarball ?? '/nonexistent'}' "\${a#*=}/";; esac; done;;`,
        `  *) cat '${join(d, 'log.txt')}';;`,
        'esac',
        '',
      ].join('\n'),
    );
    chmodSync(join(d, 'bin/mvn'), 0o755);
    writeFileSync(join(d, 'deps/maven-reactor.txt'), reactor.map((r) => `${r}\n`).join(''));
    const script = mavenInstallScript().split(DEPS_MOUNT).join(join(d, 'deps'));
    const r = spawnSync('/bin/sh', ['-c', `set -e; ${script}`], {
      env: { PATH: `${join(d, 'bin')}:/usr/bin:/bin`, TMPDIR: join(d, 'tmp') },
      encoding: 'utf8',
    });
    return { code: r.status, out: r.stdout, err: r.stderr, deps: join(d, 'deps') };
  }

  it('a build that refuses the machine’s Maven gets Maven from Maven Central, and the output ends with the Maven that ran', () => {
    const t = tmp();
    const dist = `apache-maven-${FETCHED_MAVEN}`;
    mkdirSync(join(t, dist, 'bin'), { recursive: true });
    writeFileSync(
      join(t, dist, 'bin/mvn'),
      `#!/bin/sh\ncase "$*" in *" -v"*) echo "Apache Maven ${FETCHED_MAVEN} (abc)";; *) echo "[INFO] BUILD SUCCESS";; esac\n`,
    );
    chmodSync(join(t, dist, 'bin/mvn'), 0o755);
    expect(spawnSync('tar', ['-czf', join(t, `${dist}-bin.tar.gz`), '-C', t, dist]).status).toBe(0);
    const refused =
      '[ERROR] Rule 0: org.apache.maven.enforcer.rules.version.RequireMavenVersion failed with message:\n[ERROR] Detected Maven Version: 3.8.7 is not in the allowed range [3.9,).\n';
    const r = verdict(refused, ['app'], join(t, `${dist}-bin.tar.gz`));
    expect(r.code).toBe(0);
    expect(r.out).toContain(`slopgate: the build refuses Maven 3.8.7; fetching Maven ${FETCHED_MAVEN} from Maven Central`);
    expect(r.out).toContain('[INFO] BUILD SUCCESS');
    expect(r.err.trim().split('\n').at(-1)).toBe(`Apache Maven ${FETCHED_MAVEN} (abc)`);
    expect(existsSync(join(r.deps, 'maven/bin/mvn'))).toBe(true);
  });

  it('a module that does not compile, or depends on one that does not, is not an install failure', () => {
    expect(verdict(FAILED_LOG, ['parent', 'mod-a', 'mod-b']).code).toBe(0);
  });

  it('an artifact the registry does not have fails the install, naming it (and not the modules that could not build because of it)', () => {
    const r = verdict(
      [
        '[ERROR] Failed to execute goal on project mod-a: Could not resolve dependencies for project demo:mod-a:jar:1.0: Could not find artifact org.junit.jupiter:junit-jupiter:jar:5.99.99 in central (https://repo.maven.apache.org/maven2) -> [Help 1]',
        '[ERROR] Failed to execute goal on project mod-b: Could not resolve dependencies for project demo:mod-b:jar:1.0: The following artifacts could not be resolved: demo:mod-a:jar:1.0, org.junit.jupiter:junit-jupiter:jar:5.99.99: Could not find artifact demo:mod-a:jar:1.0 in central (https://repo.maven.apache.org/maven2) -> [Help 2]',
        '',
      ].join('\n'),
      ['parent', 'mod-a', 'mod-b'],
    );
    expect(r.code).toBe(1);
    const said = r.out.split('\n').filter((l) => l.startsWith('slopgate:'));
    expect(said).toEqual([
      'slopgate: Maven: Could not find artifact org.junit.jupiter:junit-jupiter:jar:5.99.99 in central (https://repo.maven.apache.org/maven2)',
      'slopgate: Maven could not resolve: junit-jupiter',
    ]);
  });

  it('a pom Maven cannot parse fails the install', () => {
    expect(verdict('[ERROR]     Non-parseable POM /w/pom.xml: end tag name must match @ line 9\n', ['app']).code).toBe(1);
  });
});
