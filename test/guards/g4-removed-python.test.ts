import { describe, expect, it } from 'vitest';
import { g4 } from '../../src/guards/g4-imports/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

/** A distribution removed from a Python manifest while files of the project still import it. */

async function removed(base: Record<string, FileContent>, change: Record<string, FileContent>) {
  const report = await gate(prRepo(base, change), [g4]);
  return { report, findings: findingsOf(report, 'G4').filter((f) => f.evidence?.removedDependency === true) };
}

const pyproject = (deps: string[], extra = '') =>
  `[project]\nname = "svc"\nversion = "0.1.0"\ndependencies = [${deps.map((d) => JSON.stringify(d)).join(', ')}]\n${extra}`;

const APP = 'import yaml\nimport requests\n\n\ndef load(p):\n    return yaml.safe_load(requests.get(p).text)\n';

describe('G4 removed Python dependency still imported', () => {
  it('fails when pyproject drops PyYAML and requests while src imports yaml and requests, naming the import name', async () => {
    const { report, findings } = await removed(
      { 'pyproject.toml': pyproject(['PyYAML>=6', 'requests>=2.31']), 'src/svc/app.py': APP, 'src/svc/__init__.py': '' },
      { 'pyproject.toml': pyproject(['httpx>=0.27']) },
    );
    expect(findings.map((f) => [f.evidence?.package, f.severity])).toEqual([
      ['pyyaml', 'fail'],
      ['requests', 'fail'],
    ]);
    expect(findings[0]!.message).toContain(
      "removes the dependency 'pyyaml', but 1 file of this package still imports it as `yaml` (`src/svc/app.py`)",
    );
    expect(findings[0]!.message).toContain('ModuleNotFoundError');
    expect(findings[0]!.evidence).toMatchObject({ ecosystem: 'python', importName: 'yaml', importers: ['src/svc/app.py'] });
    expect(report.decision.outcome).toBe('REFINE');
  });

  it('poetry dependencies and requirements*.txt are read too; a dev group counts only test files', async () => {
    const poetry = (deps: string) =>
      `[tool.poetry]\nname = "svc"\nversion = "0.1.0"\n\n[tool.poetry.dependencies]\npython = "^3.11"\n${deps}`;
    const fromPoetry = await removed(
      {
        'pyproject.toml': poetry('beautifulsoup4 = "^4.12"\n\n[tool.poetry.group.dev.dependencies]\npytest-mock = "^3"\n'),
        'svc/scrape.py': 'from bs4 import BeautifulSoup\n\n\ndef title(html):\n    return BeautifulSoup(html, "html.parser").title\n',
        'svc/mocking.py': 'import pytest_mock  # not a test file: the dev group does not install for it\n',
        'tests/test_scrape.py': 'import pytest_mock\n\n\ndef test_x(mocker: pytest_mock.MockerFixture):\n    assert mocker\n',
      },
      { 'pyproject.toml': poetry('') },
    );
    expect(fromPoetry.findings.map((f) => [f.evidence?.package, f.evidence?.importers])).toEqual([
      ['beautifulsoup4', ['svc/scrape.py']],
      ['pytest-mock', ['tests/test_scrape.py']],
    ]);
    expect(fromPoetry.findings[1]!.message).toContain('the tests that import it fail to collect');

    const fromRequirements = await removed(
      { 'requirements.txt': 'falcon==3.1.3\nredis>=5\n', 'app.py': 'import falcon\n\napp = falcon.App()\n' },
      { 'requirements.txt': 'redis>=5\n' },
    );
    expect(fromRequirements.findings.map((f) => [f.evidence?.package, f.severity, f.path])).toEqual([
      ['falcon', 'fail', 'requirements.txt'],
    ]);
  });

  it('an optional extra counts test files only; imports under try: or TYPE_CHECKING break nothing', async () => {
    const { findings } = await removed(
      {
        'pyproject.toml': pyproject(['requests'], '\n[project.optional-dependencies]\nyaml = ["PyYAML"]\ntoml = ["tomli-w"]\n'),
        'src/svc/__init__.py': '',
        'src/svc/load.py':
          'from typing import TYPE_CHECKING\n\ntry:\n    import yaml\nexcept ImportError:\n    yaml = None\n\nif TYPE_CHECKING:\n    import tomli_w\n',
        'src/svc/dump.py': 'import tomli_w  # library code: extras are not installed for it\n',
      },
      { 'pyproject.toml': pyproject(['requests']) },
    );
    expect(findings).toEqual([]);
  });

  it('a lockfile the PR updated that still pins it makes it a risk', async () => {
    const { findings } = await removed(
      { 'pyproject.toml': pyproject(['requests', 'urllib3']), 'uv.lock': 'version = 1\n', 'app.py': 'import urllib3\n' },
      {
        'pyproject.toml': pyproject(['requests']),
        'uv.lock':
          'version = 1\n\n[[package]]\nname = "requests"\nversion = "2.32.3"\n\n[[package]]\nname = "urllib3"\nversion = "2.2.3"\n',
      },
    );
    expect(findings.map((f) => f.severity)).toEqual(['risk']);
    expect(findings[0]!.message).toContain('still installed only because `uv.lock` pins it for another dependency');
  });

  it('another locked package that requires it (uv.lock, poetry.lock, even when the PR left the lock alone) makes it a risk; the project’s own entry does not', async () => {
    const uvLock = (projectDeps: string) =>
      'version = 1\n\n[[package]]\nname = "svc"\nversion = "0.1.0"\nsource = { editable = "." }\n' +
      `dependencies = [${projectDeps}]\n\n` +
      '[[package]]\nname = "starlette"\nversion = "0.47.0"\ndependencies = [{ name = "anyio" }]\n\n[[package]]\nname = "anyio"\nversion = "4.9.0"\n';
    const uv = await removed(
      {
        'pyproject.toml': pyproject(['starlette', 'anyio', 'PyYAML']),
        'uv.lock': uvLock('{ name = "starlette" }, { name = "anyio" }, { name = "pyyaml" }'),
        'app.py': 'import anyio\nimport yaml\n',
      },
      { 'pyproject.toml': pyproject(['starlette']) },
    );
    expect(uv.findings.map((f) => [f.evidence?.package, f.severity])).toEqual([
      ['pyyaml', 'fail'],
      ['anyio', 'risk'],
    ]);
    expect(uv.findings[1]!.message).toContain('still installed only because `starlette` requires it (`uv.lock`)');
    const poetryLock =
      '[[package]]\nname = "httpcore"\nversion = "1.0.0"\n\n[package.dependencies]\nh11 = ">=0.13"\n\n[[package]]\nname = "h11"\nversion = "0.14.0"\n';
    const poetry = await removed(
      {
        'pyproject.toml':
          '[tool.poetry]\nname = "svc"\nversion = "0.1.0"\n\n[tool.poetry.dependencies]\npython = "^3.11"\nhttpcore = "*"\nh11 = "*"\n',
        'poetry.lock': poetryLock,
        'app.py': 'import h11\n',
      },
      {
        'pyproject.toml':
          '[tool.poetry]\nname = "svc"\nversion = "0.1.0"\n\n[tool.poetry.dependencies]\npython = "^3.11"\nhttpcore = "*"\n',
      },
    );
    expect(poetry.findings.map((f) => f.severity)).toEqual(['risk']);
  });

  it('negatives: removed with its last import, an unknown mapping, a stdlib backport, another manifest or distribution still providing it, a local module', async () => {
    const withLastImport = await removed(
      { 'pyproject.toml': pyproject(['PyYAML']), 'app.py': 'import yaml\n' },
      { 'pyproject.toml': pyproject([]), 'app.py': 'import json\n' },
    );
    expect(withLastImport.findings).toEqual([]);
    // msgpack-python's module is msgpack, but nothing says so with certainty: no finding.
    const unknown = await removed(
      {
        'pyproject.toml': pyproject(['msgpack-python', 'dataclasses; python_version < "3.7"']),
        'app.py': 'import msgpack\nimport dataclasses\n',
      },
      { 'pyproject.toml': pyproject([]) },
    );
    expect(unknown.findings).toEqual([]);
    const elsewhere = await removed(
      {
        'pyproject.toml': pyproject(['requests', 'psycopg2-binary', 'utils']),
        'requirements.txt': 'requests\npsycopg2\n',
        'app.py': 'import requests\nimport psycopg2\nimport utils\n',
        'utils/__init__.py': '',
      },
      { 'pyproject.toml': pyproject([]) },
    );
    expect(elsewhere.findings).toEqual([]);
  });

  it('a nested project’s files belong to its own manifest, not to the root requirements', async () => {
    const { findings } = await removed(
      {
        'requirements.txt': 'rich\n',
        'main.py': 'print(1)\n',
        'tools/cli/pyproject.toml': pyproject([]),
        'tools/cli/main.py': 'import rich\n',
      },
      { 'requirements.txt': '' },
    );
    expect(findings).toEqual([]);
    const { findings: own } = await removed(
      { 'requirements.txt': 'rich\n', 'tools/cli/main.py': 'import rich\n' },
      { 'requirements.txt': '' },
    );
    expect(own.map((f) => f.evidence?.importers)).toEqual([['tools/cli/main.py']]);
  });
});
