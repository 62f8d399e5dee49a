/**
 * The egress proxy's allow-list: the public package registries, plus the registries the operator
 * configured in slopgate's own environment. Only slopgate's environment is read here, never a file
 * of the repository under test: a PR's `.npmrc` or `pip.conf` cannot widen where the sandbox may
 * connect.
 */

const PUBLIC_REGISTRIES = [
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'repo.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'proxy.golang.org',
  'sum.golang.org',
  'index.crates.io',
  'static.crates.io',
  'crates.io',
  'repo.maven.apache.org',
  'repo1.maven.org',
];

/** Settings that hold one URL, or a list of them (pip and uv separate extra indexes with spaces). */
const URL_SETTINGS = [
  'npm_config_registry',
  'NPM_CONFIG_REGISTRY',
  'PIP_INDEX_URL',
  'PIP_EXTRA_INDEX_URL',
  'UV_INDEX_URL',
  'UV_DEFAULT_INDEX',
  // The operator's Maven mirror (deps/maven-deps.ts writes it into the sandbox's settings.xml).
  'SLOPGATE_MAVEN_MIRROR',
];

/** The registry URLs the operator's environment names. */
function operatorUrls(env: NodeJS.ProcessEnv): string[] {
  const urls: string[] = [];
  for (const name of URL_SETTINGS) urls.push(...(env[name] ?? '').split(/\s+/));
  // GOPROXY: a list separated by , or |; `direct` and `off` are not hosts.
  urls.push(...(env.GOPROXY ?? '').split(/[,|]/).filter((u) => !/^\s*(direct|off)\s*$/i.test(u)));
  for (const [name, value] of Object.entries(env)) {
    if (/^CARGO_REGISTRIES_[A-Z0-9_]+_INDEX$/.test(name) && value) urls.push(value.replace(/^(sparse|registry|git)\+/, ''));
  }
  return urls.map((u) => u.trim()).filter(Boolean);
}

function parsed(url: string): URL | null {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u : null;
  } catch {
    return null;
  }
}

/** Hosts of the public package registries, plus the operator's own registry settings. */
export function registryHosts(env: NodeJS.ProcessEnv = process.env): string[] {
  const hosts = new Set(PUBLIC_REGISTRIES);
  for (const url of operatorUrls(env)) {
    const u = parsed(url);
    if (u) hosts.add(u.hostname.replace(/\.$/, ''));
  }
  for (const extra of (env.SLOPGATE_EGRESS_ALLOW ?? '').split(',')) {
    const host = extra.trim().toLowerCase().replace(/\.$/, '');
    if (host) hosts.add(host);
  }
  return [...hosts];
}

/** The ports the allow-list needs: 443 and 80, plus any port an operator's registry URL names. */
export function registryPorts(env: NodeJS.ProcessEnv = process.env): number[] {
  const ports = new Set([443, 80]);
  for (const url of operatorUrls(env)) {
    const port = parsed(url)?.port;
    if (port) ports.add(Number(port));
  }
  return [...ports];
}

/**
 * Why sandboxed commands get no network at all although the repository asks for it, or null:
 * the operator switched the egress proxy off (SLOPGATE_EGRESS=off).
 */
export function egressOff(env: NodeJS.ProcessEnv = process.env): string | null {
  return /^(off|0|false|no)$/i.test(env.SLOPGATE_EGRESS?.trim() ?? '')
    ? 'the operator turned the sandbox network off (SLOPGATE_EGRESS=off), so tests.network has no effect and installers cannot reach a registry'
    : null;
}
