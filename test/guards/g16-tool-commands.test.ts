import { describe, expect, it } from 'vitest';
import { toolWords } from '../../src/guards/g16-project-checks/finding-text.js';
import { readClippyCommand } from '../../src/guards/g16-project-checks/clippy-options.js';
import { excludedByMypy, pythonRegex, readMypyCommand } from '../../src/guards/g16-project-checks/mypy-options.js';
import { formatterCommand, linterCommand, parseDiagnostics, tscProject } from '../../src/guards/g16-project-checks/tool-commands.js';
import { splitCodeSpans } from '../../src/report/markdown-escape.js';

describe('G16 sandboxed tools: commands and output parsers', () => {
  it('reads ruff’s JSON, leaving out syntax errors (no rule code, or E999)', () => {
    const out = JSON.stringify([
      { code: 'F401', message: '`os` imported but unused', filename: 'calc/ops.py', location: { row: 1, column: 8 } },
      { code: null, message: 'SyntaxError: Expected an expression', filename: 'calc/bad.py', location: { row: 2, column: 1 } },
      { code: 'E999', message: 'SyntaxError', filename: 'calc/old.py', location: { row: 3, column: 1 } },
    ]);
    expect(parseDiagnostics('ruff-check', out)).toEqual([
      { path: 'calc/ops.py', line: 1, rule: 'F401', message: '`os` imported but unused' },
    ]);
    expect(parseDiagnostics('ruff-check', 'error: unknown rule selector')).toBeNull();
  });

  it('reads eslint’s JSON: errors only, not warnings, ignored-file notices or parse errors', () => {
    const out = JSON.stringify([
      {
        filePath: 'src/a.js',
        messages: [
          { ruleId: 'no-debugger', severity: 2, message: "Unexpected 'debugger' statement.", line: 4 },
          { ruleId: 'no-console', severity: 1, message: 'Unexpected console statement.', line: 5 },
          { ruleId: null, severity: 2, fatal: true, message: 'Parsing error: Unexpected token', line: 9 },
        ],
      },
      { filePath: 'dist/b.js', messages: [{ ruleId: null, severity: 1, message: 'File ignored because of a matching ignore pattern.' }] },
    ]);
    expect(parseDiagnostics('eslint', out)).toEqual([
      { path: 'src/a.js', line: 4, rule: 'no-debugger', message: "Unexpected 'debugger' statement." },
    ]);
    expect(parseDiagnostics('eslint', 'Oops! Something went wrong!')).toBeNull();
  });

  it('reads tsc’s lines with their continuation; syntax errors (TS1xxx) are G2’s; a project-level error is a failed run', () => {
    const out = [
      "src/a.ts(2,14): error TS2322: Type 'string' is not assignable to type 'number'.",
      "src/b.ts(7,3): error TS2345: Argument of type '{ a: number; }' is not assignable to parameter of type 'Opts'.",
      "  Object literal may only specify known properties, and 'a' does not exist in type 'Opts'.",
      "src/c.ts(1,1): error TS1005: ';' expected.",
    ].join('\n');
    expect(parseDiagnostics('tsc', out)).toEqual([
      { path: 'src/a.ts', line: 2, rule: 'TS2322', message: "Type 'string' is not assignable to type 'number'." },
      {
        path: 'src/b.ts',
        line: 7,
        rule: 'TS2345',
        message:
          "Argument of type '{ a: number; }' is not assignable to parameter of type 'Opts'. Object literal may only specify known properties, and 'a' does not exist in type 'Opts'.",
      },
    ]);
    expect(parseDiagnostics('tsc', '')).toEqual([]);
    expect(parseDiagnostics('tsc', "error TS5083: Cannot read file '/x/tsconfig.json'.")).toBeNull();
  });

  it('reads go vet’s lines, leaving type-check and syntax errors to the build (G8) and G2', () => {
    const out = [
      '# example.com/calc/calc',
      'calc/calc.go:12:2: fmt.Printf format %d has arg s of wrong type string',
      'vet: calc/other.go:3:2: undefined: x',
      'calc/bad.go:4:1: expected declaration, found x',
    ].join('\n');
    expect(parseDiagnostics('go-vet', out)).toEqual([
      { path: 'calc/calc.go', line: 12, rule: 'vet', message: 'fmt.Printf format %d has arg s of wrong type string' },
    ]);
    expect(linterCommand('go-vet', ['calc/a.go', 'calc/b.go', 'main.go'], null)).toContain(
      `vet './calc' '.' > "$SLOPGATE_OUT/lint.out" 2>&1`,
    );
  });

  it('quotes every path it puts on a command line, and never reads a tool from the machine', () => {
    const cmd = formatterCommand('prettier', ["it's; rm -rf ~.js", '-x.js']);
    expect(cmd).toContain(`F='it'\\''s; rm -rf ~.js'`);
    expect(cmd).toContain("F='-x.js'");
    expect(cmd).toContain('T=./node_modules/.bin/prettier');
    expect(linterCommand('ruff-check', ['a.py'], null)).toContain('T="$VIRTUAL_ENV/bin/ruff"');
    expect(linterCommand('eslint', ['$(id).js'], null)).toContain("-- '$(id).js'");
  });

  it('takes tsc’s -p from the discovered line only when it is a plain relative path', () => {
    expect(tscProject('tsc --noEmit -p tsconfig.build.json')).toBe('tsconfig.build.json');
    expect(tscProject('tsc --project packages/app --noEmit')).toBe('packages/app');
    expect(tscProject('tsc --noEmit -p /etc')).toBeNull();
    expect(tscProject('tsc --noEmit -p ../other')).toBeNull();
    expect(tscProject('tsc --noEmit')).toBeNull();
  });

  it('puts a tool’s words in one code span that holds any backtick run, on one line', () => {
    const words = toolWords('a ``` b\nc `d` <img> **e**');
    const parts = splitCodeSpans(`before ${words} after`);
    expect(parts.map((p) => p.code)).toEqual([false, true, false]);
    expect(parts[1]!.text.trim()).toBe('a ``` b c `d` <img> **e**');
  });

  it('reads mypy’s usual lines (before 1.11) and its JSON lines alike: errors only, never a missing dependency or a syntax error', () => {
    // mypy 1.13's own output for the same file, in both forms
    const text = [
      'calc/ops.py:1: error: Library stubs not installed for "requests"  [import-untyped]',
      'calc/ops.py:1: note: Hint: "python3 -m pip install types-requests"',
      'calc/ops.py:2: error: Cannot find implementation or library stub for module named "notthere"  [import-not-found]',
      'calc/ops.py:10: error: "dict[str, int]" has no attribute "merge"  [attr-defined]',
      'calc/ops.py:11: error: Incompatible return value type (got "int", expected "str")  [return-value]',
      'calc/old.py:3: error: Cannot find module named "x"  [import]',
      "calc/bad.py:1: error: '(' was never closed  [syntax]",
    ].join('\n');
    const json = [
      '{"file": "calc/ops.py", "line": 1, "column": 0, "message": "Library stubs not installed for \\"requests\\"", "hint": "Hint", "code": "import-untyped", "severity": "error"}',
      '{"file": "calc/ops.py", "line": 10, "column": 4, "message": "\\"dict[str, int]\\" has no attribute \\"merge\\"", "hint": null, "code": "attr-defined", "severity": "error"}',
      '{"file": "calc/ops.py", "line": 11, "column": 11, "message": "Incompatible return value type (got \\"int\\", expected \\"str\\")", "hint": null, "code": "return-value", "severity": "error"}',
      '{"file": "calc/ops.py", "line": 11, "column": 11, "message": "See the docs", "hint": null, "code": "return-value", "severity": "note"}',
    ].join('\n');
    const expected = [
      { path: 'calc/ops.py', line: 10, rule: 'attr-defined', message: '"dict[str, int]" has no attribute "merge"' },
      { path: 'calc/ops.py', line: 11, rule: 'return-value', message: 'Incompatible return value type (got "int", expected "str")' },
    ];
    expect(parseDiagnostics('mypy', text)).toEqual(expected);
    expect(parseDiagnostics('mypy', json)).toEqual(expected);
    expect(parseDiagnostics('mypy', '')).toEqual([]);
    // errors about Any count only when nothing is missing from the run (else Any may be the missing package)
    const anyErrors = [
      'calc/x.py:8: error: Class cannot subclass "Base" (has type "Any")  [misc]',
      'calc/x.py:13: error: Returning Any from function declared to return "int"  [no-any-return]',
      'calc/x.py:20: error: Name "y" is not defined  [name-defined]',
    ];
    expect(parseDiagnostics('mypy', anyErrors.join('\n'))?.map((d) => d.line)).toEqual([8, 13, 20]);
    const withMissing = [
      'calc/x.py:1: error: Cannot find implementation or library stub for module named "b"  [import-not-found]',
      ...anyErrors,
    ];
    expect(parseDiagnostics('mypy', withMissing.join('\n'))?.map((d) => d.line)).toEqual([20]);
    expect(parseDiagnostics('mypy', 'Traceback (most recent call last):')).toBeNull();
  });

  it('reads clippy’s JSON messages: lints once each at their primary span; compile errors and dependencies’ files are not the PR’s lints', () => {
    const msg = (level: string, code: string | null, file: string, line: number, message: string) =>
      JSON.stringify({
        reason: 'compiler-message',
        package_id: 'path+file:///w#calc@0.1.0',
        message: {
          message,
          level,
          code: code ? { code, explanation: null } : null,
          spans: [
            { file_name: 'src/other.rs', line_start: 1, is_primary: false },
            { file_name: file, line_start: line, is_primary: true },
          ],
        },
      });
    const out = [
      msg('warning', 'clippy::needless_return', 'src/lib.rs', 8, 'unneeded `return` statement'),
      // the same lint again from the lib's test build
      msg('warning', 'clippy::needless_return', 'src/lib.rs', 8, 'unneeded `return` statement'),
      msg('error', 'clippy::needless_return', 'src/strict.rs', 5, 'unneeded `return` statement'),
      msg('warning', 'unused_variables', 'src/lib.rs', 3, 'unused variable: `x`'),
      msg('error', 'E0308', 'src/lib.rs', 4, 'mismatched types'),
      msg('error', null, 'src/lib.rs', 4, 'aborting due to 1 previous error'),
      msg('warning', 'clippy::pedantic', '/opt/slopgate/deps/vendor/serde-1.0.0/src/lib.rs', 1, 'in a dependency'),
      JSON.stringify({ reason: 'build-finished', success: false }),
      'a line a build script printed',
    ].join('\n');
    expect(parseDiagnostics('clippy', out)).toEqual([
      { path: 'src/lib.rs', line: 8, rule: 'clippy::needless_return', message: 'unneeded `return` statement', level: 'warning' },
      { path: 'src/strict.rs', line: 5, rule: 'clippy::needless_return', message: 'unneeded `return` statement', level: 'error' },
      { path: 'src/lib.rs', line: 3, rule: 'unused_variables', message: 'unused variable: `x`', level: 'warning' },
    ]);
    expect(parseDiagnostics('clippy', 'error: could not find `Cargo.toml`')).toBeNull();
  });

  it('passes on the project’s mypy options that change what it reports, and its clippy selection and lint levels, never -D warnings', () => {
    expect(readMypyCommand(['--strict', '--python-version', '3.11', '--junit-xml', 'out.xml', '--config-file=ci/mypy.ini', 'src'])).toEqual(
      {
        paths: ['src'],
        options: ['--strict', '--python-version=3.11', '--config-file=ci/mypy.ini'],
        exclude: [],
        configFile: 'ci/mypy.ini',
      },
    );
    expect(readMypyCommand(['$SRC']).paths).toBeUndefined();
    const mypy = linterCommand('mypy', ['calc/a.py'], null, ['--strict', '--disable-error-code', 'misc', '.']);
    expect(mypy).toContain(
      `"$T" $O --no-error-summary --no-pretty --show-error-codes --no-color-output '--strict' '--disable-error-code=misc' -- 'calc/a.py'`,
    );
    expect(mypy).toContain('T="$VIRTUAL_ENV/bin/mypy"');
    expect(
      readClippyCommand([
        '--all-targets',
        '--features',
        'a,b',
        '--message-format',
        'json',
        '--',
        '-D',
        'warnings',
        '-A',
        'clippy::too_many_arguments',
        '-Dclippy::dbg_macro',
      ]),
    ).toEqual({
      options: ['--all-targets', '--features', 'a,b'],
      lints: ['-A', 'clippy::too_many_arguments', '-D', 'clippy::dbg_macro'],
      denyWarnings: true,
    });
    const clippy = linterCommand('clippy', ['src/lib.rs'], null, ['--workspace', '--', '-W', 'clippy::pedantic', '-D', 'warnings']);
    expect(clippy).toContain(
      `"$T" clippy --message-format=json --keep-going '--workspace' -- '-W' 'clippy::pedantic' > "$SLOPGATE_OUT/lint.out"`,
    );
    expect(clippy).toContain('"$T" clippy --version');
  });

  it('reads mypy’s exclude as mypy matches it: Python’s verbose form, each directory with its slash, then the file', () => {
    const verbose = pythonRegex('(?x)(\n    ^scripts/   # tools\n  | _pb2\\.py$  # generated\n)')!;
    expect(excludedByMypy('scripts/run.py', [verbose])).toBe(true);
    expect(excludedByMypy('calc/msg_pb2.py', [verbose])).toBe(true);
    expect(excludedByMypy('calc/ops.py', [verbose])).toBe(false);
    expect(excludedByMypy('pkg/build/gen.py', [pythonRegex('/build/$')!])).toBe(true);
    expect(pythonRegex('(?P<name>x)(?P=name)')).toBeNull();
  });
});
