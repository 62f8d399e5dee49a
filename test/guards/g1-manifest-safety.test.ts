import { describe, expect, it } from 'vitest';
import { g1 } from '../../src/guards/g1-manifest-safety.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, TestRepo } from '../helpers/git-repo.js';

const pkg = (deps: Record<string, string>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'app', version: '1.0.0', ...extra, dependencies: deps }, null, 2) + '\n';

async function g1Findings(repo: TestRepo, config = {}) {
  const report = await gate(repo, [g1], { config });
  return { report, findings: findingsOf(report, 'G1') };
}

describe('G1 manifests, sensitive paths, oversize files, escaping symlinks', () => {
  it('flags a bumped and an added dependency in package.json, naming both, on the changed line', async () => {
    const repo = prRepo(
      { 'package.json': pkg({ react: '^18.2.0' }) },
      { 'package.json': pkg({ react: '^18.3.1', 'left-pad': '^1.3.0' }) },
    );
    const { report, findings } = await g1Findings(repo);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.category).toBe('manifest-edit');
    expect(f.severity).toBe('risk');
    expect(f.message).toContain('changes `react` from ^18.2.0 to ^18.3.1');
    expect(f.message).toContain('adds `left-pad` ^1.3.0');
    expect(f.line).toBe(5); // `"react": "^18.3.1"`: the first added line naming a changed dependency
    expect(f.remediation).toContain('/slopgate allow package.json');
    expect(report.decision.outcome).toBe('ADVISE');
  });

  it('makes a manifest edit blocking under strict', async () => {
    const repo = prRepo({ 'api/requirements-dev.txt': 'pytest==7.4.0\n' }, { 'api/requirements-dev.txt': 'pytest==8.2.0\nhypothesis\n' });
    const { report, findings } = await g1Findings(repo, { strict: true });
    expect(findings[0]!.message).toContain('changes `pytest` from ==7.4.0 to ==8.2.0');
    expect(findings[0]!.message).toContain('adds `hypothesis`');
    expect(report.decision.blocking).toBe(1);
    expect(report.decision.outcome).not.toBe('ADVISE');
  });

  it('says so when a Cargo.toml edit changes no dependency and counts the lines', async () => {
    const base = '[package]\nname = "x"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1"\n';
    const repo = prRepo({ 'Cargo.toml': base }, { 'Cargo.toml': base.replace('0.1.0', '0.2.0') });
    const { findings } = await g1Findings(repo);
    expect(findings[0]!.message).toMatch(/1 line added, 1 removed\) without changing any dependency/);
  });

  it('flags a lockfile edited alone but passes a lockfile edited together with its manifest', async () => {
    const lock = (v: string) => JSON.stringify({ name: 'app', lockfileVersion: 3, packages: { 'node_modules/react': { version: v } } }, null, 2) + '\n';
    const alone = prRepo({ 'web/package.json': pkg({ react: '^18.2.0' }), 'web/package-lock.json': lock('18.2.0') }, { 'web/package-lock.json': lock('18.2.1') });
    const { findings: aloneFindings } = await g1Findings(alone);
    expect(aloneFindings).toHaveLength(1);
    expect(aloneFindings[0]!.category).toBe('sensitive-path');
    expect(aloneFindings[0]!.message).toContain('without changing `package.json`');

    const paired = prRepo(
      { 'web/package.json': pkg({ react: '^18.2.0' }), 'web/package-lock.json': lock('18.2.0') },
      { 'web/package.json': pkg({ react: '^18.3.1' }), 'web/package-lock.json': lock('18.3.1') },
    );
    const { findings: pairedFindings } = await g1Findings(paired);
    expect(pairedFindings.map((f) => f.category)).toEqual(['manifest-edit']);
  });

  it('passes a root Cargo.lock refreshed because a workspace member Cargo.toml changed', async () => {
    const repo = prRepo(
      { 'Cargo.lock': '# lock v1\n', 'crates/core/Cargo.toml': '[package]\nname = "core"\n\n[dependencies]\nserde = "1.0.100"\n' },
      { 'Cargo.lock': '# lock v2\n', 'crates/core/Cargo.toml': '[package]\nname = "core"\n\n[dependencies]\nserde = "1.0.200"\n' },
    );
    const { findings } = await g1Findings(repo);
    expect(findings.map((f) => `${f.category} ${f.path}`)).toEqual(['manifest-edit crates/core/Cargo.toml']);
  });

  it('flags .env.production added (without quoting its content) and .ENV in another case', async () => {
    const repo = prRepo({ 'README.md': 'x\n' }, { '.env.production': 'DB_PASSWORD=hunter2\n', 'deploy/.ENV': 'TOKEN=abc\n' });
    const { findings } = await g1Findings(repo);
    expect(findings.map((f) => f.path).sort()).toEqual(['.env.production', 'deploy/.ENV']);
    for (const f of findings) {
      expect(f.category).toBe('sensitive-path');
      expect(f.message).not.toContain('hunter2');
      expect(f.message).not.toContain('abc');
      expect(f.remediation).toContain('rotate');
    }
  });

  it('passes an edited .env.example and .env.local.sample (templates)', async () => {
    const repo = prRepo({ '.env.example': 'DB_PASSWORD=\n' }, { '.env.example': 'DB_PASSWORD=\nDB_HOST=\n', 'svc/.env.local.sample': 'X=\n' });
    const { findings } = await g1Findings(repo);
    expect(findings).toEqual([]);
  });

  it('flags an edited workflow, a nested one and CODEOWNERS, but not an issue template', async () => {
    const repo = prRepo(
      { '.github/workflows/ci.yml': 'on: push\n', '.github/CODEOWNERS': '* @team\n' },
      {
        '.github/workflows/ci.yml': 'on: [push, pull_request_target]\n',
        'tools/sub/.github/workflows/release.yml': 'on: push\n',
        '.github/CODEOWNERS': '* @me\n',
        '.github/ISSUE_TEMPLATE/bug.md': 'Describe the bug\n',
        'src/CODEOWNERS.md': 'not a codeowners file\n',
      },
    );
    const { findings } = await g1Findings(repo);
    const byPath = Object.fromEntries(findings.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(['.github/CODEOWNERS', '.github/workflows/ci.yml', 'tools/sub/.github/workflows/release.yml']);
    expect(byPath['.github/workflows/ci.yml']!.message).toContain('GitHub Actions workflow');
    expect(byPath['.github/workflows/ci.yml']!.line).toBe(1);
    expect(byPath['.github/CODEOWNERS']!.message).toContain('who must approve');
  });

  it('flags a 3 MiB file with its size and passes a file exactly at the limit', async () => {
    const limit = 2 * 1024 * 1024;
    const repo = prRepo({ 'README.md': 'x\n' }, { 'data/dump.bin': Buffer.alloc(3 * 1024 * 1024, 7), 'data/exact.bin': Buffer.alloc(limit, 7) });
    const { findings } = await g1Findings(repo);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.category).toBe('oversize-file');
    expect(findings[0]!.path).toBe('data/dump.bin');
    expect(findings[0]!.message).toContain('3.00 MiB (3145728 bytes)');
    expect(findings[0]!.line).toBeUndefined();
  });

  it('fails a symlink to ../../etc/passwd and an absolute one, passes a symlink inside the repo', async () => {
    const repo = TestRepo.create();
    repo.write({ 'docs/guide.md': '# guide\n' }).commit('base');
    repo.branch('pr');
    repo.symlink('leak', '../../etc/passwd');
    repo.symlink('keys/id', '/home/runner/.ssh/id_rsa');
    repo.symlink('site/guide.md', '../docs/guide.md');
    repo.commit('links');
    const { report, findings } = await g1Findings(repo);
    const byPath = Object.fromEntries(findings.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(['keys/id', 'leak']);
    expect(byPath['leak']!.severity).toBe('fail');
    expect(byPath['leak']!.message).toContain('climbs above the repository root');
    expect(byPath['keys/id']!.message).toContain('absolute path');
    expect(report.decision.blocking).toBe(2);
  });

  it('fails a symlink that escapes through another symlink of the tree', async () => {
    const repo = TestRepo.create();
    repo.write({ 'README.md': 'x\n' });
    repo.symlink('vendor/outside', '../..');
    repo.commit('base');
    repo.branch('pr');
    repo.symlink('docs/secret', '../vendor/outside/etc/shadow');
    repo.commit('indirect link');
    const { findings } = await g1Findings(repo);
    expect(findings.map((f) => f.path)).toEqual(['docs/secret']);
    expect(findings[0]!.message).toContain('climbs above the repository root');
  });

  it('turns a manifest finding off when config manifests.allow sanctions it, and records why', async () => {
    const repo = prRepo({ 'pyproject.toml': '[project]\nname = "x"\ndependencies = ["requests>=2.30"]\n' }, { 'pyproject.toml': '[project]\nname = "x"\ndependencies = ["requests>=2.32", "httpx"]\n' });
    const { report, findings } = await g1Findings(repo, { manifests: { allow: ['pyproject.toml'] } });
    expect(findings).toEqual([]);
    const section = report.sections['sanctions'] as { allowed: { path: string; category: string; allowedBy: string; finding: string }[] };
    expect(section.allowed).toHaveLength(1);
    expect(section.allowed[0]).toMatchObject({ path: 'pyproject.toml', category: 'manifest-edit', allowedBy: 'config manifests.allow: pyproject.toml' });
    expect(section.allowed[0]!.finding).toContain('adds `httpx`');
  });

  it('honours a /slopgate allow sanction for a workflow edit', async () => {
    const repo = prRepo({ '.github/workflows/ci.yml': 'on: push\n' }, { '.github/workflows/ci.yml': 'on: [push]\n' });
    const report = await gate(repo, [g1], { sanctions: ['.github/workflows/ci.yml'] });
    expect(findingsOf(report, 'G1')).toEqual([]);
    expect((report.sections['sanctions'] as { allowed: { allowedBy: string }[] }).allowed[0]!.allowedBy).toContain('/slopgate allow');
  });

  it('flags a deleted go.mod and a renamed pom.xml without a line', async () => {
    const repo = prRepo(
      { 'svc/go.mod': 'module x\n\ngo 1.22\n', 'java/pom.xml': '<project/>\n' },
      { 'svc/go.mod': null, 'java/pom.xml': null, 'java2/pom.xml': '<project/>\n' },
    );
    const { findings } = await g1Findings(repo);
    const messages = findings.map((f) => f.message).sort();
    expect(messages).toEqual(['This PR deletes the build manifest `svc/go.mod`.', 'This PR moves the build manifest `java/pom.xml` to `java2/pom.xml`.']);
    expect(findings.every((f) => f.line === undefined)).toBe(true);
  });
});
