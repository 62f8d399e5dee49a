import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

type Kind = 'py' | 'ts' | 'js' | 'go' | 'rs' | 'java' | 'md' | 'json' | 'yaml' | 'toml';
const KINDS: Kind[] = ['py', 'ts', 'js', 'go', 'rs', 'java', 'md', 'json', 'yaml', 'toml'];

function body(kind: Kind, i: number, version: number): string {
  const fns = Array.from({ length: 12 }, (_, k) => k);
  switch (kind) {
    case 'py':
      return fns.map((k) => `def f${i}_${k}(a, b=1):\n    """Add things."""\n    return a + b + ${k + version}\n\n`).join('\n');
    case 'ts':
      return fns.map((k) => `export function f${i}_${k}(a: number, b = 1): number {\n  return a + b + ${k + version};\n}\n`).join('\n');
    case 'js':
      return fns.map((k) => `export function f${i}_${k}(a, b = 1) {\n  return a + b + ${k + version};\n}\n`).join('\n');
    case 'go':
      return `package p${i}\n\n` + fns.map((k) => `func F${i}_${k}(a int) int {\n\treturn a + ${version + k}\n}\n`).join('\n');
    case 'rs':
      return fns.map((k) => `pub fn f${i}_${k}(a: i64) -> i64 {\n    a + ${version + k}\n}\n`).join('\n');
    case 'java':
      return (
        `package p;\n\npublic class C${i} {\n` +
        fns.map((k) => `  public int m${k}(int a) {\n    return a + ${version + k};\n  }\n`).join('\n') +
        '}\n'
      );
    case 'md':
      return (
        `# Module ${i}\n\nVersion ${version} of the notes.\n\n\`\`\`python\nfrom pkg import f${i}_0\nprint(f${i}_0(1, 2))\n\`\`\`\n\nSee [the index](../README.md).\n` +
        'More prose here.\n'.repeat(20)
      );
    case 'json':
      return JSON.stringify({ name: `mod-${i}`, version, items: fns }, null, 2) + '\n';
    case 'yaml':
      return `name: mod-${i}\nversion: ${version}\nitems:\n` + fns.map((k) => `  - id: ${k}\n    value: v${k}\n`).join('');
    case 'toml':
      return `[module]\nname = "mod-${i}"\nversion = ${version}\n\n[items]\n` + fns.map((k) => `k${k} = ${k}\n`).join('');
  }
}

function writeAll(dir: string, n: number, version: number): void {
  for (let i = 0; i < n; i++) {
    const kind = KINDS[i % KINDS.length]!;
    const path = join(dir, `pkg${i % 20}`, `file${i}.${kind}`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body(kind, i, version));
  }
}

/** A repository whose `pr` branch modifies `n` files of ten languages/formats. Returns its path. */
export function generateMixedPr(n = 1000): string {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-bench-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'bench@slopgate.invalid');
  git('config', 'user.name', 'bench');
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  writeAll(dir, n, 1);
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  git('checkout', '-q', '-b', 'pr');
  writeAll(dir, n, 2);
  git('add', '-A');
  git('commit', '-q', '-m', 'pr');
  return dir;
}
