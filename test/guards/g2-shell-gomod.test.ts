import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { g2 } from '../../src/guards/g2-syntax/index.js';
import { checkGoMod } from '../../src/guards/g2-syntax/go-mod-syntax.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

async function g2Of(head: Record<string, FileContent>, base: Record<string, FileContent> = { 'README.md': 'x\n' }) {
  return findingsOf(await gate(prRepo(base, head), [g2]), 'G2');
}

const WF = (run: string, extra = '') => `name: ci
on: [push]
jobs:
  build:
    runs-on: ubuntu-latest${extra}
    steps:
      - uses: actions/checkout@v4
      - name: Build
        run: |
${run
  .split('\n')
  .map((l) => (l ? `          ${l}` : ''))
  .join('\n')}
`;

needs('bash')('G2: shell scripts and workflow run: blocks parse as bash (bash -n, nothing executed)', () => {
  it('a .sh file with an unclosed if fails at the line bash names; a valid one and a zsh script pass', async () => {
    const found = await g2Of({
      'scripts/release.sh': '#!/usr/bin/env bash\nset -e\nif [ -n "$1" ]; then\n  echo "$1"\nfi fi\n',
      'scripts/ok.bash': '#!/bin/bash\nshopt -s extglob\ncase "$1" in\n  @(a|b)) echo ab ;;\nesac\ncat <<EOF\n$(date)\nEOF\n',
      'scripts/prompt.sh': '#!/usr/bin/env zsh\nprint -P "%F{red}x%f" }}} (((\n',
    });
    expect(found.map((f) => [f.path, f.severity, f.line])).toEqual([['scripts/release.sh', 'fail', 5]]);
    expect(found[0]!.message).toContain("syntax error near unexpected token `fi'");
  });

  it('nothing in the script runs: a command substitution that would write a file is only parsed', async () => {
    const marker = join(tmpdir(), `slopgate-must-not-exist-${process.pid}`);
    const found = await g2Of({ 'x.sh': `echo "$(touch ${marker})"\ntouch ${marker}\n` });
    expect(found).toEqual([]);
    expect(spawnSync('test', ['-e', marker]).status).toBe(1);
  });

  it('a script already broken at the base is a risk, not a fail', async () => {
    const broken = 'if true; then\n  echo\n';
    const found = await g2Of({ 'x.sh': `${broken}echo more\n` }, { 'x.sh': broken });
    expect(found.map((f) => f.severity)).toEqual(['risk']);
  });

  it('a workflow run: block that bash rejects fails at the workflow line; ${{ }} expressions are words', async () => {
    const run = 'echo "${{ github.sha }}"\nif [ "${{ matrix.os }}" = linux ]; then\n  make\nelse\n  echo no\n';
    const [f, ...rest] = await g2Of({ '.github/workflows/ci.yml': WF(run) });
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ category: 'syntax-invalid', severity: 'fail', path: '.github/workflows/ci.yml' });
    expect(f!.message).toContain('step `Build` of job `build`');
    expect(f!.message).toContain('unexpected end of file');
    expect(f!.line).toBe(15);
  });

  it('leaves PowerShell, Python and Windows jobs alone, and scripts the base already had', async () => {
    const bad = 'if [ x ]; then\n';
    expect(await g2Of({ '.github/workflows/a.yml': WF(bad, '\n    defaults:\n      run:\n        shell: pwsh') })).toEqual([]);
    expect(await g2Of({ '.github/workflows/a.yml': WF(bad).replace('runs-on: ubuntu-latest', 'runs-on: windows-latest') })).toEqual([]);
    expect(await g2Of({ '.github/workflows/a.yml': WF(bad).replace('        run: |', '        shell: python\n        run: |') })).toEqual(
      [],
    );
    const base = WF(bad);
    expect(await g2Of({ '.github/workflows/a.yml': base.replace('name: ci', 'name: CI') }, { '.github/workflows/a.yml': base })).toEqual(
      [],
    );
  });

  it('a matrix of operating systems counts as bash when one of them is not Windows', async () => {
    const wf = WF('for f in *; do\n  echo "$f"\n', '').replace(
      'runs-on: ubuntu-latest',
      'runs-on: ${{ matrix.os }}\n    strategy:\n      matrix:\n        os: [windows-latest, ubuntu-latest]',
    );
    const found = await g2Of({ '.github/workflows/m.yml': wf });
    expect(found.map((f) => f.severity)).toEqual(['fail']);
  });

  it('reads the runner from matrix include entries and from runs-on labels, and leaves Windows-only ones alone', async () => {
    const bad = 'for f in *; do\n  echo "$f"\n';
    const withRunsOn = (runsOn: string) => WF(bad).replace('runs-on: ubuntu-latest', runsOn);
    const included = (os: string) =>
      withRunsOn(`runs-on: \${{ matrix.os }}\n    strategy:\n      matrix:\n        node: [20]\n        include:\n          - os: ${os}`);
    expect((await g2Of({ '.github/workflows/i.yml': included('ubuntu-latest') })).map((f) => f.severity)).toEqual(['fail']);
    expect(await g2Of({ '.github/workflows/i.yml': included('windows-2022') })).toEqual([]);
    const labelled = (label: string) => withRunsOn(`runs-on:\n      group: large\n      labels: [${label}]`);
    expect((await g2Of({ '.github/workflows/l.yml': labelled('ubuntu-22.04') })).map((f) => f.severity)).toEqual(['fail']);
    expect(await g2Of({ '.github/workflows/l.yml': labelled('windows-latest') })).toEqual([]);
  });

  it('a composite action step that names bash is checked', async () => {
    const action =
      'name: a\ndescription: b\nruns:\n  using: composite\n  steps:\n    - run: |\n        echo "unterminated\n      shell: bash\n';
    const found = await g2Of({ '.github/actions/setup/action.yml': action });
    expect(found.map((f) => [f.severity, f.line])).toEqual([['fail', 7]]);
  });
});

describe('G2: go.mod and go.work read as the go command reads them', () => {
  const MOD =
    'module example.com/app\n\ngo 1.22.0\n\ntoolchain go1.22.4\n\nrequire (\n\tgithub.com/gin-gonic/gin v1.10.0\n\tgolang.org/x/net v0.25.0 // indirect\n)\n';

  it('a go.mod the PR breaks fails with the line and the go command’s words', async () => {
    const cases: [string, number, string][] = [
      [MOD.replace('\n)\n', '\n'), 10, 'unterminated block'],
      [MOD.replace('v1.10.0', '1.10.0'), 8, 'must be of the form v1.2.3'],
      [MOD.replace('go 1.22.0', 'go 1.22.x'), 3, "invalid go version '1.22.x'"],
      [`${MOD}requires example.com/x v1.0.0\n`, 11, 'unknown directive: requires'],
      [`${MOD}require example.com/x/v2 v1.0.0\n`, 11, 'should be v2, not v1'],
      [`${MOD}replace example.com/y => example.com/z\n`, 11, 'replacement module without version must be directory path'],
      [`${MOD}/* a comment */\n`, 11, 'mod files must use // comments'],
    ];
    for (const [text, line, words] of cases) {
      const [f, ...rest] = await g2Of({ 'go.mod': text }, { 'go.mod': MOD });
      expect(rest).toEqual([]);
      expect(f).toMatchObject({ category: 'syntax-invalid', severity: 'fail', path: 'go.mod', line });
      expect(f!.message).toContain(words);
    }
  });

  it('passes a go.mod with every directive of the grammar, and a go.work', async () => {
    const full = `// The app.
module example.com/app/v2 // a comment

go 1.23

toolchain default

godebug (
\tdefault=go1.21
\tpanicnil=1
)

require (
\tgithub.com/gin-gonic/gin v1.10.0
\tgopkg.in/yaml.v3 v3.0.1
\tgithub.com/old/lib v2.0.0+incompatible
\t"example.com/quoted" v0.0.0-20240101000000-abcdefabcdef
)

exclude github.com/bad/mod v1.2.3

replace (
\tgithub.com/gin-gonic/gin v1.10.0 => github.com/fork/gin v1.10.1
\texample.com/local => ../local
)

retract [v2.0.0, v2.0.5] // published by mistake
retract v2.1.0

tool golang.org/x/tools/cmd/stringer

ignore ./node_modules
`;
    const work = 'go 1.23\n\nuse (\n\t./app\n\t./lib\n)\n\nuse ./tools\n\nreplace example.com/x => ./x\n';
    expect(await g2Of({ 'go.mod': full, 'sub/go.work': work })).toEqual([]);
    expect(checkGoMod('go 1.23\nrequire example.com/x v1.0.0\n', 'go.work')).toMatchObject({
      line: 2,
      message: 'unknown directive: require',
    });
  });

  needs('go')('agrees with `go mod edit -json` (the go command’s own parser)', () => {
    it('on valid and broken files alike', () => {
      const samples = [
        MOD,
        MOD.replace('v0.25.0', 'v0.25'),
        MOD.replace('(\n', '(\n\n'),
        MOD.replace('require (', 'require ( // deps'),
        `${MOD}retract (\n\tv1.0.0\n\t[v1.1.0, v1.2.0]\n)\n`,
        `${MOD}require example.com/a v1.0.0 extra\n`,
        `${MOD}exclude example.com/b\n`,
        `${MOD}replace example.com/c v1.0.0 => ./c v1.0.0\n`,
        `${MOD}replace example.com/d@v1.0.0 => example.com/e\n`,
        MOD.replace('module example.com/app', 'module "example.com/app'),
        MOD.replace('module example.com/app', "module 'example.com/app'"),
        `${MOD}godebug x\n`,
        `${MOD}toolchain go1.22.5\n`,
        `${MOD})\n`,
        `${MOD}require example.com/f/v1 v1.0.0\n`,
        `${MOD}require gopkg.in/check.v1 v0.0.0-20161208181325-20d25e280405\n`,
        `${MOD}require example.com/g v1.0.0-rc.01\n`,
        `${MOD}tool\n`,
        `${MOD}require (\n)\n`,
        `${MOD}require ( )\n`,
        `${MOD}retract v1.0.0 v1.0.1\n`,
        `${MOD}require example.com/h v1.2.3 // indirect\n`,
      ];
      const dir = mkdtempSync(join(tmpdir(), 'slopgate-gomod-'));
      try {
        const env = {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          GOTOOLCHAIN: 'local',
          GOPROXY: 'off',
          GOFLAGS: '',
          GOWORK: 'off',
          GOPATH: join(dir, 'gopath'),
          GOCACHE: join(dir, 'cache'),
        };
        for (const text of samples) {
          writeFileSync(join(dir, 'go.mod'), text);
          const go = spawnSync('go', ['mod', 'edit', '-json'], { cwd: dir, env, encoding: 'utf8' });
          const mine = checkGoMod(text, 'go.mod');
          expect({ text, ok: mine === null }).toEqual({ text, ok: go.status === 0 });
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
