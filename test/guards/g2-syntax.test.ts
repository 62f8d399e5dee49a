import { describe, expect, it } from 'vitest';
import { g2 } from '../../src/guards/g2-syntax/index.js';
import type { FileContent } from '../helpers/git-repo.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';

async function g2Run(base: Record<string, FileContent>, pr: Record<string, FileContent>) {
  const report = await gate(prRepo(base, pr), [g2]);
  return { report, findings: findingsOf(report, 'G2') };
}

describe('G2 changed files still parse', () => {
  it('fails an unquoted TOML string value (name = my-project) and suggests the quoted line', async () => {
    const { findings } = await g2Run(
      { 'pyproject.toml': '[project]\nname = "x"\n' },
      { 'pyproject.toml': '[project]\nname = my-project\nversion = "1.0"\n' },
    );
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f).toMatchObject({ category: 'syntax-invalid', severity: 'fail', path: 'pyproject.toml', line: 2 });
    expect(f.message).toContain('no longer parses as TOML (line 2, column 8)');
    expect(f.message).toContain('TOML strings need double quotes');
    expect(f.suggestion).toEqual({ path: 'pyproject.toml', startLine: 2, endLine: 2, replacement: 'name = "my-project"' });
  });

  it('fails a trailing comma in package.json at the comma, with a fix that drops it', async () => {
    const { findings } = await g2Run(
      { 'package.json': '{\n  "name": "app",\n  "version": "1.0.0"\n}\n' },
      { 'package.json': '{\n  "name": "app",\n  "version": "1.0.1",\n}\n' },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]!.line).toBe(3);
    expect(findings[0]!.message).toContain('line 3, column 21');
    expect(findings[0]!.message).toContain('trailing comma before `}`');
    expect(findings[0]!.suggestion?.replacement).toBe('  "version": "1.0.1"');
  });

  it('passes a tsconfig.json with // comments and trailing commas, and a .vscode/settings.json', async () => {
    const { findings, report } = await g2Run(
      { 'README.md': 'x\n' },
      {
        'tsconfig.json': '{\n  // strict mode\n  "compilerOptions": {\n    "strict": true, /* yes */\n  },\n}\n',
        'tsconfig.build.json': '{ "extends": "./tsconfig.json", // base\n}\n',
        '.vscode/settings.json': '{\n  // editor\n  "editor.tabSize": 2,\n}\n',
      },
    );
    expect(findings).toEqual([]);
    expect(report.guards.find((g) => g.id === 'G2')!.files).toBe(3);
  });

  it('still fails comments in a plain JSON file such as package.json', async () => {
    const { findings } = await g2Run({ 'README.md': 'x\n' }, { 'package.json': '{\n  // deps\n  "name": "app"\n}\n' });
    expect(findings[0]!.message).toContain('comments are not allowed in plain JSON');
    expect(findings[0]!.line).toBe(2);
  });

  it('passes a multi-document Kubernetes YAML', async () => {
    const k8s =
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n';
    const { findings } = await g2Run(
      { 'README.md': 'x\n' },
      { 'deploy/k8s.yaml': k8s, 'charts/web/templates/svc.yaml': '{{- if .Values.enabled }}\nkind: Service\n{{- end }}\n' },
    );
    expect(findings).toEqual([]);
  });

  it('fails a YAML indentation error in the second document with its line', async () => {
    const { findings } = await g2Run(
      { '.github/dependabot.yml': 'version: 2\n' },
      {
        '.github/dependabot.yml':
          'version: 2\n---\nupdates:\n  - package-ecosystem: npm\n    directory: /\n   schedule:\n      interval: weekly\n',
      },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]!.line).toBe(6);
    expect(findings[0]!.message).toMatch(/no longer parses as YAML \(line 6, column \d+\): .*line 6 is indented by 3 spaces, line 5 by 4/);
  });

  it('fails a Python function with a missing colon, pointing at the end of the def line', async () => {
    const { findings } = await g2Run(
      { 'app/util.py': 'import os\n\n\ndef join(a, b):\n    return os.path.join(a, b)\n' },
      { 'app/util.py': 'import os\n\n\ndef join(a, b)\n    return os.path.join(a, b)\n' },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain('no longer parses as Python (line 4, column 15): the `def` line does not end with `:`');
    expect(findings[0]!.suggestion?.replacement).toBe('def join(a, b):');
  });

  it('fails an unclosed brace in TypeScript, naming where the block opened', async () => {
    const { findings } = await g2Run(
      { 'src/a.ts': 'export class A {\n  m(): number {\n    return 1;\n  }\n}\n' },
      { 'src/a.ts': 'export class A {\n  m(): number {\n    return 1;\n  }\n' },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain('TypeScript');
    expect(findings[0]!.message).toContain('missing `}` to close the `{` opened on line 1');
    expect(findings[0]!.line).toBe(4); // the end of the file, not past it
  });

  it('passes TSX with JSX and JSX in a .jsx file', async () => {
    const { findings } = await g2Run(
      { 'README.md': 'x\n' },
      {
        'ui/List.tsx':
          'import { Item } from "./Item";\nexport const List = ({ items }: { items: string[] }) => (\n  <ul className="list">{items.map((i) => <Item key={i} label={i} />)}</ul>\n);\n',
        'ui/App.jsx': 'export default function App() {\n  return <main><h1>Hi</h1></main>;\n}\n',
      },
    );
    expect(findings).toEqual([]);
  });

  it('fails a Go file missing a closing brace', async () => {
    const { findings } = await g2Run(
      { 'README.md': 'x\n' },
      { 'cmd/main.go': 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hi")\n' },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain('no longer parses as Go');
    expect(findings[0]!.message).toContain('missing `}` to close the `{` opened on line 5');
  });

  it('fails a Rust file with an unclosed string at the opening quote', async () => {
    const { findings } = await g2Run(
      { 'README.md': 'x\n' },
      { 'src/main.rs': 'fn main() {\n    let s = "abc;\n    println!("{}", s);\n}\n' },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]!.line).toBe(2);
    expect(findings[0]!.message).toContain('Rust (line 2, column 13): the string opened here with " runs on to line 3');
  });

  it('fails a Java statement missing its semicolon', async () => {
    const { findings } = await g2Run(
      { 'src/A.java': 'public class A {\n  int f() {\n    int x = 1;\n    return x;\n  }\n}\n' },
      { 'src/A.java': 'public class A {\n  int f() {\n    int x = 1\n    return x;\n  }\n}\n' },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain('Java (line 3');
    expect(findings[0]!.message).toContain('missing `;`');
  });

  it('passes extensionless rc files written in YAML or commented JSON, and a workflow with ${{ }} expressions', async () => {
    const { findings, report } = await g2Run(
      { 'README.md': 'x\n' },
      {
        '.eslintrc': 'root: true\nextends:\n  - eslint:recommended\n',
        '.prettierrc': '{\n  // house style\n  "semi": false,\n}\n',
        '.github/workflows/ci.yml': 'on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.sha }}\n',
      },
    );
    expect(report.guards.find((g) => g.id === 'G2')!.files).toBe(3);
    expect(findings).toEqual([]);
  });

  it('skips Flow-typed JavaScript, which the JavaScript grammar cannot read, but checks plain JavaScript', async () => {
    const { findings } = await g2Run(
      { 'README.md': 'x\n' },
      {
        'src/flow.js': '// @flow\nexport function f(x: number): string {\n  return String(x);\n}\n',
        'src/plain.js': 'export function g(x {\n  return x;\n}\n',
      },
    );
    expect(findings.map((f) => f.path)).toEqual(['src/plain.js']);
  });

  it('reports a file that was already broken at base as risk, not as this PR breaking it', async () => {
    const { findings, report } = await g2Run(
      { 'config/app.json': '{\n  "a": 1,\n  "b": 2,\n}\n' },
      { 'config/app.json': '{\n  "a": 1,\n  "b": 3,\n}\n' },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]!.severity).toBe('risk');
    expect(findings[0]!.message).toContain('already failed to parse before this PR (base: line 3, column 9)');
    expect(report.decision.blocking).toBe(0);
  });

  it('skips deleted, binary and renamed-away files and checks a renamed broken one against its old path', async () => {
    const { findings, report } = await g2Run(
      { 'old.py': 'def f(:\n    pass\n', 'gone.json': '{"a": 1}\n' },
      { 'gone.json': null, 'data.json': Buffer.from([0x7b, 0x00, 0x7d]), 'old.py': null, 'new.py': 'def f(:\n    pass\n' },
    );
    expect(report.guards.find((g) => g.id === 'G2')!.files).toBe(1);
    expect(findings).toHaveLength(1);
    expect(findings[0]!).toMatchObject({ path: 'new.py', severity: 'risk' });
  });
});
