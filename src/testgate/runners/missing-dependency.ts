/**
 * Dependencies the sandbox cannot resolve (no network, a cold module cache, a package not installed),
 * read from the toolchains' own error messages, so a skip names what is missing and how to provide it
 * instead of reporting a build failure the PR did not cause.
 */

const uniq = (xs: string[]) => [...new Set(xs)];

function list(names: string[], max = 5): string {
  const shown = names.slice(0, max).map((n) => `\`${n}\``);
  const more = names.length > max ? ` and ${names.length - max} more` : '';
  if (shown.length <= 1) return `${shown[0] ?? ''}${more}`;
  const head = shown.slice(0, -1).join(', ');
  const last = shown.at(-1) ?? '';
  return more ? `${head}, ${last}${more}` : `${head} and ${last}`;
}

/**
 * How the go command says it could not fetch a module. The last form is a shared module cache that
 * the sandbox mounts read-only (the operator's GOMODCACHE): for a module it lacks, go first creates
 * its download directory there (`mkdir <cache>/cache/download/github.com: read-only file system`,
 * or `<cache>/cache` when the cache is empty) and never gets as far as `GOPROXY=off`.
 */
const GO_OFFLINE =
  /module lookup disabled by GOPROXY=off|import lookup disabled by -mod=|dial tcp: lookup [\w.-]+|proxyconnect tcp|network is unreachable|connection refused|i\/o timeout|no such host|(?:mkdir|open) \S*\/cache(?:\/\S*)?: read-only file system/;

/**
 * Go modules that could not be downloaded. `readImport(file, line, col)` returns the quoted import
 * path at a source position (Go 1.19 reports `x_test.go:3:2: module lookup disabled by GOPROXY=off`
 * without naming it).
 */
export function goMissingModules(text: string, readImport?: (file: string, line: number, col: number) => string | null): string[] {
  const names: string[] = [];
  const downloading: string[] = [];
  let offline = false;
  for (const line of text.split('\n')) {
    const dl = /^go: downloading (\S+) (v\S+)/.exec(line);
    if (dl) {
      downloading.push(`${dl[1]}@${dl[2]}`);
      continue;
    }
    if (!GO_OFFLINE.test(line)) continue;
    offline = true;
    const provide = /cannot find module providing package (\S+?):/.exec(line);
    if (provide) {
      names.push(provide[1]!);
      continue;
    }
    const at = /(?:^|\s|go: )((?:[\w-]+\.)+[\w-]+(?:\/[\w.~+-]+)*@v[\w.+-]+)(?::|\s)/.exec(line);
    if (at) {
      names.push(at[1]!);
      continue;
    }
    const url = /https?:\/\/[\w.-]+\/(\S+?)\/@v\/(v[\w.+-]+?)\.(?:mod|zip|info)/.exec(line);
    if (url) {
      names.push(`${url[1]!.replace(/!([a-z])/g, (_m, c: string) => c.toUpperCase())}@${url[2]}`);
      continue;
    }
    const pos = /^\s*(\S+\.go):(\d+):(\d+): /.exec(line);
    const imp = pos && readImport ? readImport(pos[1]!, Number(pos[2]), Number(pos[3])) : null;
    if (imp) names.push(imp);
  }
  if (!offline) return [];
  // Downloads announced and then refused are the modules that are missing.
  const all = uniq(names.length ? names : downloading);
  return all.length ? all : ['(a module of go.mod)'];
}

/** Crates that cargo could not resolve or fetch offline. */
export function cargoMissingCrates(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(/no matching package named `([^`]+)` found/g)) names.push(m[1]!);
  for (const m of text.matchAll(/failed to (?:get|download|select a version for(?: the requirement)?) `([^`]+?)(?: = [^`]*)?`/g))
    names.push(m[1]!);
  for (const m of text.matchAll(/failed to download from `[^`]*\/([\w-]+)\/[\w.+-]+\/download`/g)) names.push(m[1]!);
  if (
    names.length === 0 &&
    /(--offline was specified|you're using offline mode|failed to update registry|failed to query replaced source registry|Couldn't resolve host|failed to load source for dependency)/.test(
      text,
    )
  )
    names.push('(a crate of Cargo.toml)');
  return uniq(names);
}

/** The module named by `ModuleNotFoundError: No module named 'x.y'` (top-level name), if any. */
export function pythonMissingModule(message: string | undefined): string | null {
  const m = /(?:ModuleNotFoundError|ImportError): No module named '([^']+)'/.exec(message ?? '');
  return m ? m[1]!.split('.')[0]! : null;
}

/**
 * Names the module (with its required version) for an import path or bare module, from go.mod's
 * `require` lines: `golang.org/x/sys/unix` becomes `golang.org/x/sys@v0.28.0`.
 */
export function goModuleOf(name: string, goMod: string): string {
  if (name.includes('@')) return name;
  const requires = [...goMod.matchAll(/^\s*(?:require\s+)?([\w.~+-]+(?:\/[\w.~+-]+)*)\s+(v\S+)/gm)].map((m) => ({
    path: m[1]!,
    version: m[2]!,
  }));
  const best = requires.filter((r) => name === r.path || name.startsWith(r.path + '/')).sort((a, b) => b.path.length - a.path.length)[0];
  return best ? `${best.path}@${best.version}` : name;
}

export function goMissingReason(modules: string[]): string {
  const them = modules.length === 1 ? 'it' : 'them';
  return `Go module${modules.length === 1 ? '' : 's'} ${list(modules)} could not be downloaded (the sandbox has no network or its module cache lacks ${them}): provide ${them} with a warm module cache (run \`go mod download\` in tests.setup with tests.network: true, once per cache) or vendor ${them} (\`go mod vendor\`)`;
}

export function cargoMissingReason(crates: string[]): string {
  const them = crates.length === 1 ? 'it' : 'them';
  return `the crate${crates.length === 1 ? '' : 's'} ${list(crates)} could not be resolved (the sandbox has no network or cargo's registry cache lacks ${them}): provide ${them} with a warm cache (run \`cargo fetch\` in tests.setup with tests.network: true) or vendor ${them} (\`cargo vendor\`)`;
}

export function pythonMissingReason(modules: string[]): string {
  return `every test module fails to import ${list(modules)} (ModuleNotFoundError), a declared dependency that is not part of the repository: the sandbox's Python lacks ${modules.length === 1 ? 'this dependency' : 'these dependencies'}; install the test dependencies in tests.setup (e.g. \`pip install --user -r requirements-dev.txt\` or \`pip install --user -e .[test]\`, with tests.network: true or a local wheel cache)`;
}
