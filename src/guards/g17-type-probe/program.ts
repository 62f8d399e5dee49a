import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type * as TS from 'typescript';

/** The TypeScript compiler, loaded once on first use (its CommonJS build hangs everything off `default`). */
const importCompiler = () => import('typescript');
export type Compiler = Awaited<ReturnType<typeof importCompiler>>['default'];
let compiler: Promise<Compiler> | null = null;
export function loadCompiler(): Promise<Compiler> {
  compiler ??= importCompiler().then((m) => m.default);
  return compiler;
}

/** Where tree files live in the program's virtual file system (outside the compiler's own lib folder). */
export const ROOT = '/repo';
export const virtualPath = (path: string) => `${ROOT}/${path}`;
export const treePath = (name: string) => (name.startsWith(`${ROOT}/`) ? name.slice(ROOT.length + 1) : null);

/** Options no project setting may change: nothing is emitted, nothing is looked up outside the tree. */
function forced(ts: Compiler): TS.CompilerOptions {
  return {
    noEmit: true,
    allowJs: true,
    checkJs: true,
    skipLibCheck: true,
    noLib: false,
    types: [],
    typeRoots: [],
    composite: false,
    incremental: false,
    declaration: false,
    emitDeclarationOnly: false,
    plugins: [],
    jsx: ts.JsxEmit.Preserve,
  };
}

function defaults(ts: Compiler): TS.CompilerOptions {
  return {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    esModuleInterop: true,
    allowSyntheticDefaultImports: true,
    resolveJsonModule: true,
    allowImportingTsExtensions: true,
  };
}

/**
 * The compiler options of the program: the root tsconfig.json's `compilerOptions` when it is there and
 * parses (its `extends` is not followed: it often names an uninstalled package), else defaults; then the
 * forced options. Returns where the options came from, for the report.
 */
export function programOptions(ts: Compiler, tsconfig: string | undefined): { options: TS.CompilerOptions; source: string } {
  if (tsconfig !== undefined) {
    const parsed = ts.parseConfigFileTextToJson('tsconfig.json', tsconfig);
    const raw: unknown = parsed.config;
    const compilerOptions: unknown =
      typeof raw === 'object' && raw !== null && 'compilerOptions' in raw ? (raw as { compilerOptions: unknown }).compilerOptions : {};
    if (!parsed.error && typeof compilerOptions === 'object' && compilerOptions !== null) {
      const converted = ts.convertCompilerOptionsFromJson(compilerOptions, ROOT, 'tsconfig.json');
      if (!converted.errors.length) {
        // Only a bare setting is forced where the project chose a combination the compiler rejects.
        const options = { ...defaults(ts), ...converted.options, ...forced(ts) };
        if (converted.options.module !== undefined && converted.options.moduleResolution === undefined) delete options.moduleResolution;
        if (options.moduleResolution !== ts.ModuleResolutionKind.Bundler) delete options.allowImportingTsExtensions;
        return { options, source: 'tsconfig.json' };
      }
    }
  }
  return { options: { ...defaults(ts), ...forced(ts) }, source: 'defaults' };
}

/** Parsed lib files of the compiler's own folder, shared by every program of this process. */
const libCache = new Map<string, TS.SourceFile>();

export interface ProgramInput {
  files: ReadonlyMap<string, string>;
  roots: readonly string[];
  options: TS.CompilerOptions;
  /** Tree files the program may parse beyond its roots. */
  maxProgramFiles: number;
  /** Called before each tree file is parsed; throws to stop building (the probe's deadline). */
  beforeParse?: () => void;
}

/**
 * A program over an in-memory tree: tree files come from `files` (read from git, never from a checkout),
 * lib files from the compiler's bundled lib folder. Nothing else exists: a bare import (a package) does
 * not resolve, and its bindings are `any`.
 */
export function buildProgram(ts: Compiler, input: ProgramInput): TS.Program {
  const libDir = dirname(ts.getDefaultLibFilePath(input.options));
  const inLib = (name: string) => name.startsWith(`${libDir}/`);
  const dirs = new Set<string>();
  for (const p of input.files.keys()) for (let d = dirname(virtualPath(p)); d !== '/' && !dirs.has(d); d = dirname(d)) dirs.add(d);
  const rootSet = new Set(input.roots.map(virtualPath));
  let served = 0;
  const readTree = (name: string) => {
    const p = treePath(name);
    return p === null ? undefined : input.files.get(p);
  };
  const host: TS.CompilerHost = {
    getSourceFile(name, languageVersion) {
      if (inLib(name)) {
        const key = `${name}\0${String(typeof languageVersion === 'object' ? languageVersion.languageVersion : languageVersion)}`;
        let sf = libCache.get(key);
        if (!sf) {
          sf = ts.createSourceFile(name, readFileSync(name, 'utf8'), languageVersion, false);
          libCache.set(key, sf);
        }
        return sf;
      }
      const text = readTree(name);
      if (text === undefined) return undefined;
      if (!rootSet.has(name) && ++served > input.maxProgramFiles) return undefined;
      // Parsing and binding hundreds of files takes no cancellation token: the deadline is asked here.
      input.beforeParse?.();
      return ts.createSourceFile(name, text, languageVersion, true);
    },
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    getDefaultLibLocation: () => libDir,
    writeFile: () => undefined,
    getCurrentDirectory: () => ROOT,
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (name) => (inLib(name) ? ts.sys.fileExists(name) : readTree(name) !== undefined),
    readFile: (name) => (inLib(name) ? ts.sys.readFile(name) : readTree(name)),
    directoryExists: (name) => name === ROOT || name === libDir || dirs.has(name),
    getDirectories: () => [],
    realpath: (name) => name,
  };
  return ts.createProgram({ rootNames: input.roots.map(virtualPath), options: input.options, host });
}
