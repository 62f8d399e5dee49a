import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The environment of a sandboxed test run, built from an allow-list. Nothing else of the app's
 * environment reaches PR code: no tokens, keys, secrets, database URLs or proxy credentials.
 */

/** Passed through unchanged when the app has them. */
const PASS_THROUGH = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'GOFLAGS', 'GOROOT'];

/** File paths of CA bundles (needed when setup downloads through a TLS-intercepting proxy). */
const CA_PATHS = ['SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'PIP_CERT'];

/**
 * The machine's own trust store (Debian/Ubuntu, then Fedora/RHEL). Tools that carry their own CA list
 * (Node.js, pip before 24.2 with certifi, requests, cargo) are pointed at it when the host sets none of
 * the variables above: behind a TLS-intercepting proxy whose CA only the machine trusts, they would
 * otherwise fail every download ("from versions: none"), an outage that is the gate's, not the code's.
 */
const SYSTEM_CA_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'];
const CA_FILE_VARS = ['SSL_CERT_FILE', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'PIP_CERT', 'CARGO_HTTP_CAINFO'];

/** Names that are never passed, whatever the caller asks for (defence in depth). */
const FORBIDDEN =
  /(TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE|CREDENTIAL|COOKIE|SESSION|AUTH|KEY|PROXY|_PAT$)|^(GITHUB_|GH_|GIT_|AWS_|AZURE_|GOOGLE_|GCP_|NPM_CONFIG__AUTH|DATABASE_URL$|REDIS_URL$|PG[A-Z]*$|APP_ID$|WEBHOOK|SLOPGATE_LLM|OPENAI|ANTHROPIC|GONOSUMDB|GOPRIVATE|PIP_INDEX_URL|PIP_EXTRA_INDEX_URL|CARGO_REGISTRIES_)/i;

export interface SandboxEnvOptions {
  /** Temp HOME of this run. */
  home: string;
  /** Temp TMPDIR of this run. */
  tmp: string;
  /**
   * The run's own writable cache directory (Go build cache, GOPATH, CARGO_HOME, npm/pip caches). It
   * belongs to one run and is discarded with it: no writable cache is shared between runs.
   */
  cacheDir: string;
  /** A read-only shared Go module cache (used as GOMODCACHE when the run has no network). */
  goModCache?: string;
  /** Toolchain locations found by the sandbox probe (RUSTUP_HOME, PYENV_ROOT, GOROOT). */
  toolchainEnv?: Record<string, string>;
  network: boolean;
  /**
   * With `network`: the variables that point installers at the egress proxy (sandbox-egress.ts), set
   * after the filter. Any other *PROXY* variable, the host's own included, never reaches the sandbox.
   */
  proxy?: Record<string, string>;
  /**
   * The run has an address-space limit (RLIMIT_AS). Node then needs `--disable-wasm-trap-handler`:
   * V8 otherwise reserves ~10 GB of address space per WebAssembly memory, so any wasm (undici's
   * HTTP parser behind `fetch`, vite's and vitest's module lexers) dies with "Out of memory".
   */
  addressSpaceLimit?: boolean;
  /** Extra variables for the runner (e.g. SLOPGATE_OUT); still filtered. */
  extra?: Record<string, string>;
  /** The app's environment (defaults to process.env); only allow-listed names are read. */
  from?: NodeJS.ProcessEnv;
}

export function isForbiddenEnvName(name: string): boolean {
  return FORBIDDEN.test(name);
}

/** A toolchain home: the app's setting, else the conventional dir under the real home if it exists. */
function toolchainHome(from: NodeJS.ProcessEnv, name: string, dir: string): string | undefined {
  const set = from[name];
  if (set && existsSync(set)) return set;
  const fallback = join(homedir(), dir);
  return existsSync(fallback) ? fallback : undefined;
}

/** Node options that let WebAssembly run under an address-space limit (Node ≥ 20.15 / 22.2). */
export function nodeOptionsForAddressLimit(): string | undefined {
  return process.allowedNodeEnvironmentFlags.has('--disable-wasm-trap-handler') ? '--disable-wasm-trap-handler' : undefined;
}

export function sandboxEnv(opts: SandboxEnvOptions): Record<string, string> {
  const from = opts.from ?? process.env;
  // Defaults for what the host does not pass through.
  const env: Record<string, string> = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', TZ: 'UTC' };
  for (const name of PASS_THROUGH) if (from[name]) env[name] = from[name]!;
  // CA bundles only matter with network; without it they would only slow every process start
  // (NODE_EXTRA_CA_CERTS is parsed by each node process).
  if (opts.network) {
    for (const name of CA_PATHS) if (from[name] && existsSync(from[name])) env[name] = from[name]!;
    const bundle = env.SSL_CERT_FILE ?? SYSTEM_CA_BUNDLES.find((f) => existsSync(f));
    if (bundle) for (const name of CA_FILE_VARS) env[name] ??= bundle;
  }
  Object.assign(env, {
    HOME: opts.home,
    TMPDIR: opts.tmp,
    CI: 'true',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    CARGO_TERM_COLOR: 'never',
    PYTHONDONTWRITEBYTECODE: '1',
    // Go: slopgate's own caches (never the app's), the local toolchain only.
    GOCACHE: join(opts.cacheDir, 'go-build'),
    GOPATH: join(opts.cacheDir, 'gopath'),
    GOTOOLCHAIN: 'local',
    // Cargo: a private CARGO_HOME, so ~/.cargo/credentials.toml is out of reach; rustup's
    // toolchains are only read.
    CARGO_HOME: join(opts.cacheDir, 'cargo-home'),
    npm_config_cache: join(opts.cacheDir, 'npm'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    PIP_CACHE_DIR: join(opts.cacheDir, 'pip'),
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
  });
  // git in the run reads the tree's own throwaway repository and the run's $HOME/.gitconfig, never the
  // machine's /etc/gitconfig (set after the filter below, which drops every other GIT_* name).
  const gitNoSystem = { GIT_CONFIG_NOSYSTEM: '1' };
  if (!opts.network) {
    env.GOPROXY = 'off';
    env.npm_config_offline = 'true';
    env.CARGO_NET_OFFLINE = 'true';
  }
  if (opts.goModCache && !opts.network) env.GOMODCACHE = opts.goModCache;
  const nodeOptions = opts.addressSpaceLimit ? nodeOptionsForAddressLimit() : undefined;
  if (nodeOptions) env.NODE_OPTIONS = nodeOptions;
  if (opts.toolchainEnv) Object.assign(env, opts.toolchainEnv);
  else {
    const rustup = toolchainHome(from, 'RUSTUP_HOME', '.rustup');
    if (rustup) env.RUSTUP_HOME = rustup;
    const pyenv = toolchainHome(from, 'PYENV_ROOT', '.pyenv');
    if (pyenv) env.PYENV_ROOT = pyenv;
  }
  for (const [k, v] of Object.entries(opts.extra ?? {})) env[k] = v;
  for (const name of Object.keys(env)) if (isForbiddenEnvName(name) && name !== 'GOPROXY') delete env[name];
  Object.assign(env, gitNoSystem);
  if (opts.network && opts.proxy) Object.assign(env, opts.proxy);
  return env;
}
