import { describe, expect, it } from 'vitest';
import { Revision } from '../../src/core/revision.js';
import { computeFingerprint, fingerprintFor } from '../../src/repo/fingerprint.js';
import { declares, hasFramework } from '../../src/repo/fingerprint-query.js';
import type { Guard } from '../../src/core/guard.js';
import type { RepoFingerprint } from '../../src/repo/fingerprint-types.js';
import { gate } from '../helpers/gate.js';
import { TestRepo, prRepo, type FileContent } from '../helpers/git-repo.js';

async function fingerprintOfFiles(files: Record<string, FileContent>): Promise<RepoFingerprint> {
  const repo = TestRepo.create();
  const sha = repo.write(files).commit('base');
  return computeFingerprint(new Revision(repo.dir, sha));
}

describe('repo fingerprint', () => {
  it('reads npm dependency tables, workspaces as local packages, and infers frameworks', async () => {
    const fp = await fingerprintOfFiles({
      'package.json': JSON.stringify({
        name: 'root',
        workspaces: ['packages/*'],
        dependencies: { '@reduxjs/toolkit': '^2', react: '^18' },
        devDependencies: { Vitest: '^1' },
        peerDependencies: { '@mui/material': '*' },
        optionalDependencies: { fsevents: '*' },
      }),
      'packages/ui/package.json': JSON.stringify({ name: '@acme/ui', dependencies: { '@nestjs/core': '^10' } }),
      'node_modules/left-pad/package.json': JSON.stringify({ name: 'left-pad', dependencies: { evil: '1' } }),
      'src/a.ts': 'export {}\n',
      'src/b.tsx': 'export {}\n',
      'lib/c.py': '',
    });
    expect(fp.deps.npm).toEqual(['@mui/material', '@nestjs/core', '@reduxjs/toolkit', 'fsevents', 'react', 'vitest']);
    expect(fp.localPackages).toEqual(['@acme/ui', 'root']);
    expect(fp.manifests).toEqual(['package.json', 'packages/ui/package.json']);
    expect(fp.frameworks).toEqual(['mui', 'nestjs', 'react', 'redux']);
    expect(fp.languages).toEqual({ typescript: 2, python: 1 });
    expect(fp.ecosystems).toEqual(['npm']);
  });

  it('reads PEP 621 dependencies, optional dependencies, dependency groups and normalises per PEP 503', async () => {
    const fp = await fingerprintOfFiles({
      'pyproject.toml': [
        '[project]',
        'name = "My_App"',
        'dependencies = ["Requests[socks]>=2.0", "typing.extensions; python_version<\'3.8\'", "Flask_Cors @ https://x/y.whl"]',
        '[project.optional-dependencies]',
        'pg = ["psycopg2-binary==2.9"]',
        '[dependency-groups]',
        'test = ["pytest>=8"]',
        '[build-system]',
        'requires = ["hatchling"]',
      ].join('\n'),
    });
    expect(fp.deps.python).toEqual(['flask-cors', 'hatchling', 'psycopg2-binary', 'pytest', 'requests', 'typing-extensions']);
    expect(fp.pythonProjects).toEqual(['my-app']);
    expect(fp.frameworks).toEqual(['flask']);
  });

  it('reads Poetry main, dev and group dependency tables without the python entry', async () => {
    const fp = await fingerprintOfFiles({
      'pyproject.toml': [
        '[tool.poetry]',
        'name = "svc"',
        '[tool.poetry.dependencies]',
        'python = "^3.11"',
        'FastAPI = "^0.110"',
        '[tool.poetry.dev-dependencies]',
        'black = "*"',
        '[tool.poetry.group.docs.dependencies]',
        'mkdocs_material = "*"',
      ].join('\n'),
    });
    expect(fp.deps.python).toEqual(['black', 'fastapi', 'mkdocs-material']);
    expect(fp.frameworks).toEqual(['fastapi', 'starlette']);
  });

  it('reads requirements files with extras, markers, -r includes, -e VCS URLs, URLs and comments', async () => {
    const fp = await fingerprintOfFiles({
      'requirements.txt': [
        '# app deps',
        '-r base/common.in',
        'uvicorn[standard]>=0.2 ; sys_platform != "win32"  # server',
        '-e git+https://github.com/acme/Tool_Kit.git#egg=tool_kit',
        '--index-url https://pypi.example/simple',
        'https://files.example/pkgs/Some.Lib-1.2.3.tar.gz',
        '-c constraints.txt',
        'django \\',
        '  >=4.2',
      ].join('\n'),
      'base/common.in': 'SQLAlchemy==2.0\n-r ../../escape.txt\n',
      'constraints.txt': 'not-a-dep==1\n',
    });
    expect(fp.deps.python).toEqual(['django', 'some-lib', 'sqlalchemy', 'tool-kit', 'uvicorn']);
    expect(fp.manifests).toContain('base/common.in');
    expect(fp.frameworks).toEqual(['django']);
  });

  it('reads setup.cfg install_requires and extras, Pipfile packages and setup.py literals', async () => {
    const fp = await fingerprintOfFiles({
      'setup.cfg':
        '[metadata]\nname = legacy.pkg\n\n[options]\ninstall_requires =\n    click>=8\n    attrs ; python_version>"3.6"\n\n[options.extras_require]\nyaml =\n    PyYAML\n',
      'tools/Pipfile': '[packages]\nrich = "*"\n\n[dev-packages]\nmypy = "*"\n',
      'legacy/setup.py':
        'from setuptools import setup\nsetup(name="x", install_requires=["tornado>=6", \'six\'], extras_require={"dev": ["flake8"]})\n',
    });
    expect(fp.deps.python).toEqual(['attrs', 'click', 'flake8', 'mypy', 'pyyaml', 'rich', 'six', 'tornado']);
    expect(fp.pythonProjects).toEqual(['legacy-pkg']);
    expect(fp.frameworks).toEqual(['click', 'tornado']);
  });

  it('reads go.mod module path and require lines and blocks, indirect ones included', async () => {
    const fp = await fingerprintOfFiles({
      'svc/go.mod':
        'module example.com/acme/svc\n\ngo 1.22\n\nrequire github.com/spf13/cobra v1.8.0\n\nrequire (\n\tgithub.com/gin-gonic/gin v1.9.1\n\tgithub.com/labstack/echo/v4 v4.11.0 // indirect\n)\n',
      'svc/main.go': 'package main\n',
    });
    expect(fp.goModules).toEqual(['example.com/acme/svc']);
    expect(fp.deps.go).toEqual(['github.com/gin-gonic/gin', 'github.com/labstack/echo/v4', 'github.com/spf13/cobra']);
    expect(fp.frameworks).toEqual(['cobra', 'echo', 'gin']);
  });

  it('reads Cargo dependency tables incl. target-specific, workspace, build and renamed deps', async () => {
    const fp = await fingerprintOfFiles({
      'Cargo.toml': ['[workspace]', 'members = ["cli"]', '[workspace.dependencies]', 'tokio = { version = "1", features = ["full"] }'].join(
        '\n',
      ),
      'cli/Cargo.toml': [
        '[package]',
        'name = "my-cli"',
        '[lib]',
        'name = "mycli_core"',
        '[dependencies]',
        'clap = "4"',
        'json = { package = "serde_json", version = "1" }',
        'tokio.workspace = true',
        '[dev-dependencies]',
        'assert_cmd = "2"',
        '[build-dependencies]',
        'cc = "1"',
        "[target.'cfg(windows)'.dependencies]",
        'winapi = "0.3"',
        "[target.'cfg(unix)'.dev-dependencies]",
        'nix = "0.27"',
      ].join('\n'),
      'target/debug/Cargo.toml': '[dependencies]\nbogus = "1"\n',
    });
    expect(fp.deps.rust).toEqual(['assert_cmd', 'cc', 'clap', 'json', 'nix', 'serde_json', 'tokio', 'winapi']);
    expect(fp.rustCrates).toEqual(['my-cli', 'mycli_core']);
    expect(fp.frameworks).toEqual(['clap', 'tokio']);
    expect(declares(fp, 'rust', 'serde_json')).toBe(true);
    expect(declares(fp, 'rust', 'assert-cmd')).toBe(true);
  });

  it('reads pom.xml, build.gradle(.kts) and the Gradle version catalog as group:artifact', async () => {
    const fp = await fingerprintOfFiles({
      'pom.xml':
        '<project><dependencies><dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId></dependency></dependencies>' +
        '<dependencyManagement><dependencies><dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId></dependency></dependencies></dependencyManagement></project>',
      'app/build.gradle':
        "dependencies {\n  implementation 'com.squareup.okhttp3:okhttp:4.12.0'\n  testImplementation group: 'junit', name: 'junit', version: '4.13'\n}\n",
      'lib/build.gradle.kts':
        'dependencies {\n  api("org.jetbrains.kotlinx:kotlinx-coroutines-core:1.8.0")\n  implementation(platform("org.example:bom:1"))\n}\n',
      'gradle/libs.versions.toml': '[libraries]\nretrofit = { module = "com.squareup.retrofit2:retrofit", version = "2" }\n',
    });
    expect(fp.deps.java).toEqual([
      'com.google.guava:guava',
      'com.squareup.okhttp3:okhttp',
      'com.squareup.retrofit2:retrofit',
      'junit:junit',
      'org.example:bom',
      'org.jetbrains.kotlinx:kotlinx-coroutines-core',
      'org.springframework.boot:spring-boot-starter-web',
    ]);
  });

  it('reads Gemfile gems, gemspec dependencies and composer require tables without platform entries', async () => {
    const fp = await fingerprintOfFiles({
      Gemfile: "source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\ngem(\"pg\")\n# gem 'commented'\n",
      'acme.gemspec': 'spec.add_development_dependency \'rspec\'\nspec.add_runtime_dependency "thor"\n',
      'composer.json': JSON.stringify({
        require: { php: '>=8.1', 'ext-json': '*', 'laravel/framework': '^11' },
        'require-dev': { 'phpunit/phpunit': '^10' },
      }),
    });
    expect(fp.deps.ruby).toEqual(['pg', 'rails', 'rspec', 'thor']);
    expect(fp.deps.php).toEqual(['laravel/framework', 'phpunit/phpunit']);
    expect(fp.ecosystems).toEqual(['ruby', 'php']);
  });

  it('ignores manifests under vendored and build folders and survives a manifest that does not parse', async () => {
    const fp = await fingerprintOfFiles({
      'vendor/x/composer.json': '{"require":{"a/b":"1"}}',
      '.venv/lib/requirements.txt': 'evil\n',
      'third_party/go.mod': 'module x\nrequire y v1\n',
      'dist/package.json': '{"dependencies":{"z":"1"}}',
      'pyproject.toml': '[project\nbroken',
      'package.json': '{ "dependencies": { "express": "^4" }, }',
    });
    expect(fp.deps.php).toEqual([]);
    expect(fp.deps.python).toEqual([]);
    expect(fp.deps.go).toEqual([]);
    expect(fp.deps.npm).toEqual(['express']);
    expect(fp.manifests).toEqual(['package.json', 'pyproject.toml']);
    expect(hasFramework(fp, 'express')).toBe(true);
  });

  it('is cached per tree id: the same tree gives the same object, a new tree recomputes', async () => {
    const repo = TestRepo.create();
    const a = repo.write({ 'requirements.txt': 'flask\n' }).commit('a');
    const b = repo.write({ 'README.md': 'hi\n' }).commit('b'); // same manifests, different tree
    const fa = await computeFingerprint(new Revision(repo.dir, a));
    expect(await computeFingerprint(new Revision(repo.dir, a))).toBe(fa);
    const fb = await computeFingerprint(new Revision(repo.dir, b));
    expect(fb).not.toBe(fa);
    expect(fb.deps.python).toEqual(['flask']);
  });

  it('fingerprintFor unites the base with what the PR declares, once per run', async () => {
    const repo = prRepo(
      { 'requirements.txt': 'flask\n', 'app.py': 'import flask\n' },
      { 'requirements.txt': 'flask\n-r extra.txt\n', 'extra.txt': 'psycopg2-binary\n', 'web/package.json': '{"dependencies":{"vue":"3"}}' },
    );
    const seen: RepoFingerprint[] = [];
    const probe: Guard = {
      id: 'probe',
      name: 'probe',
      appliesTo: () => true,
      checkAll: async (_files, ctx) => {
        seen.push(await fingerprintFor(ctx));
        seen.push(await fingerprintFor(ctx));
        return [];
      },
    };
    await gate(repo, [probe]);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]!.deps.python).toEqual(['flask', 'psycopg2-binary']);
    expect(seen[0]!.deps.npm).toEqual(['vue']);
    expect(seen[0]!.frameworks).toEqual(['flask', 'vue']);
  });
});
