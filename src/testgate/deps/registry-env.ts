import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The operator's registry settings, passed to installers in the sandbox: where npm, pip and go fetch
 * from. They come from slopgate's own environment and the operator's own config files, never from
 * the repository (whose `.npmrc`, `pip.conf` or `.cargo/config.toml` cannot widen what the egress
 * proxy lets through anyway). A URL carrying credentials is never passed: nothing secret enters the
 * sandbox, so registries that need a login are not supported.
 */

function withoutCredentials(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.username || u.password ? undefined : url;
  } catch {
    return undefined;
  }
}

/** `registry=` from the operator's own ~/.npmrc (auth lines are never read into the sandbox). */
function npmrcRegistry(home: string): string | undefined {
  try {
    const m = /^\s*registry\s*=\s*(\S+)\s*$/m.exec(readFileSync(join(home, '.npmrc'), 'utf8'));
    return m?.[1];
  } catch {
    return undefined;
  }
}

/** `index-url` from the operator's pip config. */
function pipConfIndex(home: string): string | undefined {
  for (const f of [
    process.env.PIP_CONFIG_FILE,
    join(home, '.config', 'pip', 'pip.conf'),
    join(home, '.pip', 'pip.conf'),
    '/etc/pip.conf',
  ]) {
    if (!f) continue;
    try {
      const m = /^\s*index-url\s*=\s*(\S+)\s*$/m.exec(readFileSync(f, 'utf8'));
      if (m) return m[1];
    } catch {
      continue;
    }
  }
  return undefined;
}

/**
 * GOSUMDB (`name`, `name+key`, `name+key url`, `off`) without credentials: a value with userinfo in its
 * URL, or an `@` anywhere, is dropped, and Go's default checksum database is used.
 */
function checksumDatabase(value: string | undefined): string | undefined {
  const v = value?.trim();
  if (!v || v.includes('@')) return undefined;
  const parts = v.split(/\s+/);
  if (parts.length > 2) return undefined;
  if (parts[1] !== undefined && withoutCredentials(parts[1]) === undefined) return undefined;
  return parts.join(' ');
}

let memo: Record<string, string> | null = null;

export function operatorRegistryEnv(env: NodeJS.ProcessEnv = process.env, home = homedir()): Record<string, string> {
  if (memo && env === process.env) return memo;
  const out: Record<string, string> = {};
  const npm =
    withoutCredentials(env.npm_config_registry ?? env.NPM_CONFIG_REGISTRY ?? npmrcRegistry(home)) ?? 'https://registry.npmjs.org/';
  out.npm_config_registry = npm;
  out.YARN_NPM_REGISTRY_SERVER = npm.replace(/\/+$/, '');
  const pip = withoutCredentials(env.PIP_INDEX_URL ?? pipConfIndex(home));
  if (pip) out.PIP_INDEX_URL = pip;
  const extra = withoutCredentials(env.PIP_EXTRA_INDEX_URL);
  if (extra) out.PIP_EXTRA_INDEX_URL = extra;
  const goproxy = (env.GOPROXY ?? 'https://proxy.golang.org,direct')
    .split(/[,|]/)
    .filter((p) => p === 'direct' || p === 'off' || withoutCredentials(p))
    .join(',');
  out.GOPROXY = goproxy || 'https://proxy.golang.org';
  const sumdb = checksumDatabase(env.GOSUMDB);
  if (sumdb) out.GOSUMDB = sumdb;
  if (env === process.env) memo = out;
  return out;
}

/** The variables of {@link operatorRegistryEnv} each ecosystem's installer reads; an install gets only its own. */
const READ_BY: Record<string, string[]> = {
  npm: ['npm_config_registry', 'YARN_NPM_REGISTRY_SERVER'],
  pnpm: ['npm_config_registry', 'YARN_NPM_REGISTRY_SERVER'],
  yarn: ['npm_config_registry', 'YARN_NPM_REGISTRY_SERVER'],
  python: ['PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL'],
  go: ['GOPROXY', 'GOSUMDB'],
};

/**
 * Switches that stop the usual postinstall downloads from outside the registries (browsers, Electron,
 * Cypress, driver binaries): the egress proxy would refuse them, and one refused download would fail
 * the whole install. A suite that needs the browser then says so when it runs, and the rest installs.
 */
export const SKIP_DOWNLOAD_ENV: Readonly<Record<string, string>> = {
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
  PUPPETEER_SKIP_DOWNLOAD: '1',
  PUPPETEER_SKIP_CHROMIUM_DOWNLOAD: '1',
  CYPRESS_INSTALL_BINARY: '0',
  ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
  CHROMEDRIVER_SKIP_DOWNLOAD: 'true',
  GECKODRIVER_SKIP_DOWNLOAD: 'true',
  SAUCECTL_INSTALL_BINARY: 'false',
  NODE_SQLITE3_BINARY_SITE_OFF: '1',
};

const JS_ECOSYSTEMS = new Set(['npm', 'pnpm', 'yarn']);

/** The skip-download switches an ecosystem's install runs with (JavaScript package managers only). */
export function skipDownloadEnvFor(ecosystem: string): Record<string, string> {
  return JS_ECOSYSTEMS.has(ecosystem) ? { ...SKIP_DOWNLOAD_ENV } : {};
}

export function registryEnvFor(ecosystem: string, env: Record<string, string> = operatorRegistryEnv()): Record<string, string> {
  const names = READ_BY[ecosystem] ?? [];
  return Object.fromEntries(Object.entries(env).filter(([k]) => names.includes(k)));
}
