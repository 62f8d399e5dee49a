import { describe, expect, it } from 'vitest';
import { g1 } from '../../src/guards/g1-manifest-safety/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

/** G1 on one base → head edit; `author` is the PR author as the host reports it. */
async function g1Of(base: Record<string, FileContent>, head: Record<string, FileContent>, author?: string) {
  const report = await gate(prRepo(base, head), [g1], { services: { run: { repo: 'o/r', pr: 1, ...(author ? { author } : {}) } } });
  return { report, findings: findingsOf(report, 'G1') };
}

const pkg = (deps: Record<string, string>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'app', version: '1.0.0', ...extra, dependencies: deps }, null, 2) + '\n';

const POM = (truth: string, plugin: string, own = '1.0.0') => `<project>
  <groupId>com.example</groupId>
  <artifactId>app</artifactId>
  <version>${own}</version>
  <properties>
    <java.version>17</java.version>
    <truth.version>${truth}</truth.version>
  </properties>
  <dependencies>
    <dependency>
      <groupId>com.google.truth</groupId>
      <artifactId>truth</artifactId>
      <version>\${truth.version}</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-jar-plugin</artifactId>
        <version>${plugin}</version>
      </plugin>
    </plugins>
  </build>
</project>
`;

describe('G1: version-only bumps and dependency bots are notes, not risks', () => {
  it('a package.json that only moves existing versions (and packageManager) is a nit that says so', async () => {
    const { report, findings } = await g1Of(
      { 'package.json': pkg({ react: '^18.2.0' }, { packageManager: 'pnpm@9.1.0' }) },
      { 'package.json': pkg({ react: '^18.3.1' }, { packageManager: 'pnpm@9.4.0' }) },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ category: 'manifest-edit', severity: 'nit' });
    expect(findings[0]!.message).toContain('changes `react` from ^18.2.0 to ^18.3.1');
    expect(findings[0]!.message).toContain('Only versions of dependencies it already declared changed');
    expect(report.decision.outcome).toBe('PASS');
  });

  it('stays a risk when the spec stops being a version (a git URL) or a dependency is added', async () => {
    const url = await g1Of({ 'package.json': pkg({ lib: '^1.0.0' }) }, { 'package.json': pkg({ lib: 'github:someone/lib#main' }) });
    expect(url.findings[0]).toMatchObject({ severity: 'risk' });
    const added = await g1Of({ 'package.json': pkg({ lib: '^1.0.0' }) }, { 'package.json': pkg({ lib: '^1.1.0', other: '^2.0.0' }) });
    expect(added.findings[0]).toMatchObject({ severity: 'risk' });
    expect(added.findings[0]!.message).not.toContain('Only versions');
  });

  it('requirements.txt with pip-compile hashes: a bump is a nit, a changed extra or marker is not', async () => {
    const base = 'requests==2.31.0 \\\n    --hash=sha256:aaa\nidna==3.6 \\\n    --hash=sha256:bbb  # via requests\n';
    const bump = await g1Of({ 'requirements.txt': base }, { 'requirements.txt': base.replace('2.31.0', '2.32.3').replace('aaa', 'ccc') });
    expect(bump.findings[0]).toMatchObject({ severity: 'nit' });
    const extra = await g1Of(
      { 'requirements.txt': base },
      { 'requirements.txt': base.replace('requests==2.31.0', 'requests[socks]==2.31.0') },
    );
    expect(extra.findings[0]).toMatchObject({ severity: 'risk' });
    const pyBase = '[project]\nname = "app"\nversion = "1"\ndependencies = ["typing-extensions>=3.10; python_version < \'3.10\'"]\n';
    const marker = await g1Of(
      { 'pyproject.toml': pyBase },
      { 'pyproject.toml': pyBase.replace(">=3.10; python_version < '3.10'", ">=4.10; python_version < '3.13'") },
    );
    expect(marker.findings[0]).toMatchObject({ severity: 'risk' });
    const pyBump = await g1Of({ 'pyproject.toml': pyBase }, { 'pyproject.toml': pyBase.replace('>=3.10', '>=4.10') });
    expect(pyBump.findings[0]).toMatchObject({ severity: 'nit' });
  });

  it('go.mod: new require versions are a nit; a new replace directive is a risk', async () => {
    const mod = 'module example.com/app\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/net v0.55.0\n\tgolang.org/x/sys v0.45.0 // indirect\n)\n';
    const bump = await g1Of({ 'go.mod': mod }, { 'go.mod': mod.replace('v0.55.0', 'v0.56.0').replace('v0.45.0', 'v0.46.0') });
    expect(bump.findings[0]).toMatchObject({ severity: 'nit' });
    const replace = await g1Of({ 'go.mod': mod }, { 'go.mod': `${mod}\nreplace golang.org/x/net => ../net\n` });
    expect(replace.findings[0]).toMatchObject({ severity: 'risk' });
  });

  it('Cargo.toml: a version inside a dependency table is a nit; a changed feature list is not a version bump', async () => {
    const cargo =
      '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\ntokio = { version = "1.40", features = ["rt"] }\nserde = "1"\n';
    const bump = await g1Of({ 'Cargo.toml': cargo }, { 'Cargo.toml': cargo.replace('1.40', '1.41') });
    expect(bump.findings[0]).toMatchObject({ severity: 'nit' });
    expect(bump.findings[0]!.message).toContain('Only versions');
    const own = await g1Of({ 'Cargo.toml': cargo }, { 'Cargo.toml': cargo.replace('version = "0.1.0"', 'version = "0.2.0"') });
    expect(own.findings[0]).toMatchObject({ severity: 'risk' });
  });

  it('pom.xml: dependency, plugin and version-property bumps are nits; the java.version property and the project version are not', async () => {
    const base = POM('1.4.0', '3.4.1');
    const bump = await g1Of({ 'pom.xml': base }, { 'pom.xml': POM('1.4.4', '3.4.2') });
    expect(bump.findings[0]).toMatchObject({ severity: 'nit' });
    const java = await g1Of({ 'pom.xml': base }, { 'pom.xml': base.replace('<java.version>17', '<java.version>21') });
    expect(java.findings[0]).toMatchObject({ severity: 'risk' });
    const own = await g1Of({ 'pom.xml': base }, { 'pom.xml': POM('1.4.0', '3.4.1', '2.0.0') });
    expect(own.findings[0]).toMatchObject({ severity: 'risk' });
  });

  it('every manifest and lockfile edit of a dependency bot is a nit; the same edit by a person is a risk', async () => {
    const base = { 'package.json': pkg({ lib: '^1.0.0' }), 'package-lock.json': '{"lockfileVersion":3}\n' };
    const head = { 'package.json': pkg({ lib: '^1.0.0', added: '^2.0.0' }) };
    const bot = await g1Of(base, head, 'dependabot[bot]');
    expect(bot.findings.map((f) => [f.category, f.severity])).toEqual([['manifest-edit', 'nit']]);
    expect(bot.findings[0]!.message).toContain('`dependabot[bot]`, a dependency-update bot');
    const lockOnly = await g1Of(base, { 'package-lock.json': '{"lockfileVersion":3,"x":1}\n' }, 'renovate[bot]');
    expect(lockOnly.findings.map((f) => [f.category, f.severity])).toEqual([['sensitive-path', 'nit']]);
    const person = await g1Of(base, { 'package-lock.json': '{"lockfileVersion":3,"x":1}\n' }, 'dependabot');
    expect(person.findings.map((f) => [f.category, f.severity])).toEqual([['sensitive-path', 'risk']]);
    expect((await g1Of(base, head, 'someone')).findings[0]).toMatchObject({ severity: 'risk' });
  });

  it('the author reaches G1 in a guard thread too (the App and the CLI run static guards there)', async () => {
    const repo = prRepo({ 'package.json': pkg({ lib: '^1.0.0' }) }, { 'package.json': pkg({ lib: '^1.0.0', added: '^2.0.0' }) });
    const report = await gate(repo, [g1], { guardThreads: true, services: { run: { repo: 'o/r', pr: 1, author: 'renovate[bot]' } } });
    expect(findingsOf(report, 'G1').map((f) => f.severity)).toEqual(['nit']);
  });
});
