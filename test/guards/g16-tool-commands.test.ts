import { describe, expect, it } from 'vitest';
import { toolWords } from '../../src/guards/g16-project-checks/finding-text.js';
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
});
