import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Report } from '../../src/core/report.js';
import { prRepo } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';
import { gateTests, sandboxCacheDir, testsSection } from './fixtures.js';

/**
 * G8 on a real Maven build: a two-module reactor whose tests use JUnit 5 from Maven Central,
 * installed for real through the egress proxy into the dependency cache, then run offline with the
 * cache read-only. The first gate run (a PR that touches no pom) fills the cache, or finds it filled;
 * every later run with the same poms installs nothing.
 */

const cache = sandboxCacheDir();
afterAll(() => cache.remove());

const POM = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>demo</groupId>
  <artifactId>parent</artifactId>
  <version>1.0</version>
  <packaging>pom</packaging>
  <modules>
    <module>a</module>
    <module>b</module>
  </modules>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.10.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
    </plugins>
  </build>
</project>
`;

const module = (artifactId: string, deps = '') => `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>demo</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>${artifactId}</artifactId>
  ${deps}
</project>
`;

const A_TEST = `package a;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ATest {
  @Test
  void one() {
    assertEquals(1, A.one());
  }
}
`;

const B = 'package b;\n\npublic class B {\n  public static int two() {\n    return a.A.one() + 1;\n  }\n}\n';

const B_TEST = `package b;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BTest {
  @Test
  void two() {
    assertEquals(2, B.two());
  }

  @Test
  void three() {
    assertEquals(3, B.two() + 1);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void positive(int x) {
    assertTrue(x > 0);
  }
}
`;

/** Fails the first time it runs in a tree and passes after: only a re-run that selects it can tell. */
const FLAKY_TEST = `package b;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FlakyTest {
  @Test
  void settles() throws Exception {
    Path marker = Path.of("target", "flaky-marker");
    if (!Files.exists(marker)) {
      Files.createFile(marker);
      fail("first run");
    }
  }
}
`;

const MAVEN = {
  'pom.xml': POM,
  'a/pom.xml': module('mod-a'),
  'a/src/main/java/a/A.java': 'package a;\n\npublic class A {\n  public static int one() {\n    return 1;\n  }\n}\n',
  'a/src/test/java/a/ATest.java': A_TEST,
  'b/pom.xml': module(
    'mod-b',
    '<dependencies><dependency><groupId>demo</groupId><artifactId>mod-a</artifactId><version>1.0</version></dependency></dependencies>',
  ),
  'b/src/main/java/b/B.java': B,
  'b/src/test/java/b/BTest.java': B_TEST,
};

interface Deps {
  base: { status: string; ecosystem?: string };
  head: { status: string; entry?: { scope: string } };
}
const depsOf = (r: Report) => (r.sections.tests as { dependencies?: Deps }).dependencies;
const toolchainOf = (r: Report) => (r.sections.tests as { toolchain?: Record<string, string> }).toolchain;

needs('maven', 'bwrap')('G8 on Maven projects', () => {
  let warm: Report;
  // Maven Central can be slow: the first install has the install budget (at least 15 minutes).
  beforeAll(async () => {
    warm = await gateTests(prRepo(MAVEN, { 'README.md': 'Two modules.\n' }), { cacheDir: cache.dir });
  }, 1_200_000);

  it('runs every module’s tests at the base and the head, from a local repository the install filled through the proxy', () => {
    const section = testsSection(warm);
    expect(section).toMatchObject({ runner: 'maven', regressions: [], brokenUnits: [], removed: [] });
    expect(section.baseline).toMatchObject({ total: 5, failing: 0 });
    expect(section.candidate).toMatchObject({ total: 5, failing: 0 });
    expect(warm.findings).toEqual([]);
    expect(['installed', 'cached']).toContain(depsOf(warm)?.base.status);
    expect(depsOf(warm)?.base.ecosystem).toBe('maven');
    expect(toolchainOf(warm)).toMatchObject({ java: expect.stringMatching(/^\d+/), maven: expect.stringMatching(/^3\./) });
  });

  it('a change that breaks what a test checks: test-regression naming Class#method at its definition; the base install is reused', async () => {
    const repo = prRepo(MAVEN, { 'b/src/main/java/b/B.java': B.replace('a.A.one() + 1', 'a.A.one() + 2') });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 1 } });
    expect([...testsSection(report).regressions].sort()).toEqual(['java:b:b.BTest#three', 'java:b:b.BTest#two']);
    const f = report.findings.filter((x) => x.category === 'test-regression').sort((x, y) => (x.line ?? 0) - (y.line ?? 0));
    expect(f.map((x) => [x.path, x.line])).toEqual([
      ['b/src/test/java/b/BTest.java', 12],
      ['b/src/test/java/b/BTest.java', 17],
    ]);
    expect(f[0]!.message).toMatch(
      /Test `b:b\.BTest#two` passes at the base .* fails with this change on all 2 runs: .*expected: <2> but was: <3>/,
    );
    // The base's install is reused; the head's runs the build's plugins on its own tree, so it is its own entry.
    expect(depsOf(report)).toMatchObject({ base: { status: 'cached' }, head: { entry: { scope: 'tree' } } });
  }, 600_000);

  it('a test that no longer compiles: build-broken for its module at the first error, while the other module still runs its tests', async () => {
    const repo = prRepo(MAVEN, { 'a/src/test/java/a/ATest.java': A_TEST.replace('A.one()', 'A.onee()') });
    const report = await gateTests(repo, { cacheDir: cache.dir });
    expect(report.findings.map((f) => f.category)).toEqual(['build-broken']);
    expect(report.findings[0]).toMatchObject({ path: 'a/src/test/java/a/ATest.java', line: 10, severity: 'fail' });
    expect(report.findings[0]!.message).toMatch(
      /Maven module `a` no longer builds with this change .*cannot find symbol \(symbol: +method onee\(\); location: class a\.A\)/,
    );
    const section = testsSection(report);
    expect(section).toMatchObject({ brokenUnits: ['maven:a'], removed: [], regressions: [] });
    expect(section.candidate).toMatchObject({ total: 4, failing: 0 });
    // The base's install is reused; the head's runs the build's plugins on its own tree, so it is its own entry.
    expect(depsOf(report)).toMatchObject({ base: { status: 'cached' }, head: { entry: { scope: 'tree' } } });
  }, 600_000);

  it('a new test that fails once and passes when re-run by name is flaky, not a regression', async () => {
    const repo = prRepo(MAVEN, { 'b/src/test/java/b/FlakyTest.java': FLAKY_TEST });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 1 } });
    expect(testsSection(report)).toMatchObject({ regressions: [], flaky: ['java:b:b.FlakyTest#settles'] });
  }, 600_000);

  it('a dependency version that does not exist: the install fails at the head, a blocking finding on the pom', async () => {
    const repo = prRepo(MAVEN, { 'pom.xml': POM.replace('<version>5.10.2</version>', '<version>5.99.99</version>') });
    const report = await gateTests(repo, { cacheDir: cache.dir });
    const f = report.findings.find((x) => x.category === 'build-broken');
    expect(f).toMatchObject({ path: 'pom.xml', severity: 'fail' });
    expect(f!.message).toMatch(/dependencies no longer install with this change \(maven.*junit-jupiter.*5\.99\.99/);
  }, 1_200_000);
});
