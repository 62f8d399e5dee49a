import { describe, expect, it } from 'vitest';
import { buildOfCommand, discoverBuilds } from '../../src/guards/g16-project-checks/build-commands.js';
import { firstError } from '../../src/guards/g16-project-checks/build-check.js';

const wf = (steps: string) =>
  `name: ci\non: pull_request\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n${steps}`;

describe('G16 build discovery: which builds the base runs, and where it says so', () => {
  it('reads the build of each ecosystem from workflow run lines, with the file and line', () => {
    const ci = wf(
      [
        '      - run: npx vite build',
        '      - run: go build -v ./...',
        '      - run: cargo +stable build --locked',
        '      - run: ./mvnw -q compile',
        '      - run: python -m build',
        '      - run: npx tsc --noEmit -p tsconfig.json',
        '      - run: go vet ./... && go build "$PKG"',
        '',
      ].join('\n'),
    );
    const builds = discoverBuilds(new Map([['.github/workflows/ci.yml', ci]]));
    expect(builds.map((b) => [b.eco, b.command, b.where, b.tsc ?? false])).toEqual([
      ['node', 'vite build', '.github/workflows/ci.yml:8', false],
      ['go', 'go build -v ./...', '.github/workflows/ci.yml:9', false],
      ['cargo', 'cargo build --locked', '.github/workflows/ci.yml:10', false],
      ['maven', './mvnw -q compile', '.github/workflows/ci.yml:11', false],
      ['python', 'python -m build', '.github/workflows/ci.yml:12', false],
      ['node', 'tsc --noEmit -p tsconfig.json', '.github/workflows/ci.yml:13', true],
      // a package the shell expands is not run as written: the whole module is built
      ['go', 'go build ./...', '.github/workflows/ci.yml:14', false],
    ]);
    expect(builds.every((b) => b.inCi && !b.lenient)).toBe(true);
  });

  it('a package script CI calls is a build when it is named for one or only builds; a lint script with tsc in it is not', () => {
    const scripts = {
      build: 'vite build',
      'build:types': 'tsc -p tsconfig.types.json',
      typecheck: 'tsc --noEmit',
      lint: 'eslint . && tsc --noEmit',
      test: 'vitest run',
    };
    expect(buildOfCommand('pnpm build', scripts)).toEqual({ eco: 'node', command: 'npm run build' });
    expect(buildOfCommand('yarn run build:types', scripts)).toEqual({ eco: 'node', command: 'npm run build:types', tsc: true });
    expect(buildOfCommand('npm run typecheck', scripts)).toEqual({ eco: 'node', command: 'npm run typecheck', tsc: true });
    expect(buildOfCommand('npm run lint', scripts)).toBeNull();
    expect(buildOfCommand('npm test', scripts)).toBeNull();
    // a script the base does not have, and a tool left watching, are not builds
    expect(buildOfCommand('npm run build:docs', scripts)).toBeNull();
    expect(buildOfCommand('tsc --watch', scripts)).toBeNull();
    expect(buildOfCommand('vite dev', scripts)).toBeNull();
  });

  it('a lenient step keeps why; the strict step of the same command wins', () => {
    const ci = wf(
      ['      - run: npm run build || true', '      - name: Go', '        continue-on-error: true', '        run: go build ./...', ''].join(
        '\n',
      ),
    );
    const other = wf('      - run: npm run build\n');
    const pkg = JSON.stringify({ scripts: { build: 'node build.mjs', test: 'node --test' } });
    const lenient = discoverBuilds(
      new Map([
        ['.github/workflows/ci.yml', ci],
        ['package.json', pkg],
      ]),
    );
    expect(lenient.map((b) => [b.command, b.lenient])).toEqual([
      ['npm run build', 'the command ends in `|| true`'],
      ['go build ./...', 'its step (job `build`, step `Go`) has `continue-on-error: true`'],
    ]);
    const both = discoverBuilds(
      new Map([
        ['.github/workflows/a.yml', ci],
        ['.github/workflows/b.yml', other],
        ['package.json', pkg],
      ]),
    );
    expect(both.find((b) => b.command === 'npm run build')).toMatchObject({ where: '.github/workflows/b.yml:8' });
    expect(both.find((b) => b.command === 'npm run build')?.lenient).toBeUndefined();
  });

  it('reads deploy configurations, and package.json’s build only for a project without tests when nothing else names one', () => {
    const pkg = (test?: string) => JSON.stringify({ scripts: { build: 'next build', ...(test ? { test } : {}) } });
    const vercel = '{\n  "framework": "nextjs",\n  "buildCommand": "npm run build"\n}\n';
    const netlify = '[context.production]\n  command = "echo no"\n\n[build]\n  publish = "dist"\n  command = "vite build"\n';
    expect(
      discoverBuilds(
        new Map([
          ['vercel.json', vercel],
          ['package.json', pkg('vitest')],
        ]),
      ).map((b) => [b.command, b.where]),
    ).toEqual([['npm run build', 'vercel.json:3']]);
    expect(discoverBuilds(new Map([['netlify.toml', netlify]])).map((b) => [b.command, b.where])).toEqual([
      ['vite build', 'netlify.toml:6'],
    ]);
    expect(discoverBuilds(new Map([['package.json', pkg()]]))).toEqual([
      { eco: 'node', command: 'npm run build', where: 'package.json: "build": "next build"', inCi: false },
    ]);
    expect(discoverBuilds(new Map([['package.json', pkg('vitest run')]]))).toEqual([]);
  });
});

describe('G16 build: the error line a build-broken finding quotes', () => {
  it('skips headings and colour codes for the line that names the error', () => {
    const vite = [
      'vite v8.3.8 building client environment for production...',
      '\u001b[31m✗\u001b[39m Build failed in 153ms',
      'error during build:',
      'Build failed with 1 error:',
      '',
      '[MISSING_EXPORT] "ChatCompletionModel" is not exported by "src/lib.js".',
    ].join('\n');
    expect(firstError(vite)).toBe('[MISSING_EXPORT] "ChatCompletionModel" is not exported by "src/lib.js".');
    expect(firstError('# example.com/m/b\nb/b.go:3:23: undefined: undefinedThing\n')).toBe('b/b.go:3:23: undefined: undefinedThing');
    expect(firstError('✘ [ERROR] No matching export in "src/lib.js" for import "x"\n\n    m.js:1:9:\n')).toBe(
      '✘ [ERROR] No matching export in "src/lib.js" for import "x"',
    );
    expect(firstError('   Compiling crate v0.1.0\nerror[E0425]: cannot find function `missing` in this scope\n')).toBe(
      'error[E0425]: cannot find function `missing` in this scope',
    );
    const pip = [
      '  error: subprocess-exited-with-error',
      '  × Getting requirements to build wheel did not run successfully.',
      '  │ exit code: 1',
      "      error: package directory 'missing' does not exist",
      '  note: This error originates from a subprocess, and is likely not a problem with pip.',
    ].join('\n');
    expect(firstError(pip)).toBe("error: package directory 'missing' does not exist");
    // only a heading: the line after it
    expect(firstError('errors found:\n  the config is wrong\n')).toBe('the config is wrong');
    expect(firstError('done\nexit 2\n')).toBe('exit 2');
  });
});
