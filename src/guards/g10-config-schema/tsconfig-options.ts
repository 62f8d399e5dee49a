import type { SchemaProblem } from './schema-errors.js';

/**
 * Unknown `compilerOptions` and `watchOptions` of a tsconfig/jsconfig, as the TypeScript compiler
 * itself reports them (TS5023/TS5025 "Unknown compiler option 'x'. Did you mean 'y'?", TS5078/TS5079
 * for watch options). The bundled schema leaves these tables open, and tsc refuses the file. Values
 * are left to the schema (its messages list what is allowed); `extends` is not followed.
 */
const importCompiler = () => import('typescript');
type Compiler = Awaited<ReturnType<typeof importCompiler>>['default'];
let compiler: Promise<Compiler> | null = null;
function loadCompiler(): Promise<Compiler> {
  compiler ??= importCompiler().then((m) => m.default);
  return compiler;
}

/** `major.minor` of the TypeScript slopgate reads options with. */
export async function bundledTypeScript(): Promise<string> {
  return (await loadCompiler()).versionMajorMinor;
}

const UNKNOWN_CODES = new Map([
  [5023, 'compilerOptions'],
  [5025, 'compilerOptions'],
  [5078, 'watchOptions'],
  [5079, 'watchOptions'],
]);

export async function tsconfigOptionProblems(text: string): Promise<SchemaProblem[]> {
  const ts = await loadCompiler();
  const fileName = '/slopgate/tsconfig.json';
  const source = ts.parseJsonText(fileName, text);
  // Nothing is read from disk: `extends` and the file list resolve to nothing, and those errors are dropped.
  const host = { useCaseSensitiveFileNames: true, readDirectory: () => [], fileExists: () => false, readFile: () => undefined };
  const parsed = ts.parseJsonSourceFileConfigFileContent(source, host, '/slopgate', undefined, fileName);
  const out: SchemaProblem[] = [];
  for (const d of parsed.errors) {
    const table = UNKNOWN_CODES.get(d.code);
    if (!table) continue;
    const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    const name = /'([^']+)'/.exec(text)?.[1];
    if (!name) continue;
    const meant = /Did you mean '([^']+)'/.exec(text)?.[1];
    out.push({
      path: [table, name],
      keyword: 'additionalProperties',
      expected: `an option TypeScript ${ts.versionMajorMinor} knows`,
      actual: null,
      key: `/${table}\u0000additionalProperties\u0000${name}`,
      known: meant ? [meant] : [],
    });
  }
  return out;
}
