import { describe, expect, it } from 'vitest';
import { egressOff, registryHosts, registryPorts } from '../../src/sandbox/egress/registry-hosts.js';
import { egressEnv } from '../../src/sandbox/egress/sandbox-egress.js';
import { sandboxEnv } from '../../src/sandbox/sandbox-env.js';

describe('the registry allow-list', () => {
  it('holds the public registries by default', () => {
    expect(registryHosts({}).sort()).toEqual(
      [
        'crates.io',
        'files.pythonhosted.org',
        'index.crates.io',
        'proxy.golang.org',
        'pypi.org',
        'registry.npmjs.org',
        'registry.yarnpkg.com',
        'repo.maven.apache.org',
        'repo.yarnpkg.com',
        'repo1.maven.org',
        'static.crates.io',
        'sum.golang.org',
      ].sort(),
    );
    expect(registryPorts({})).toEqual([443, 80]);
  });

  it("adds the hosts of the operator's registry settings, and SLOPGATE_EGRESS_ALLOW", () => {
    const env = {
      npm_config_registry: 'https://npm.corp.example/repository/npm/',
      PIP_INDEX_URL: 'https://pypi.corp.example/simple',
      PIP_EXTRA_INDEX_URL: 'https://extra1.example/simple https://extra2.example:8443/simple',
      UV_INDEX_URL: 'https://uv.example/simple',
      UV_DEFAULT_INDEX: 'https://uv-default.example/simple',
      GOPROXY: 'https://goproxy.corp.example,https://goproxy2.example|direct,off',
      CARGO_REGISTRIES_MY_CORP_INDEX: 'sparse+https://cargo.corp.example/index/',
      SLOPGATE_EGRESS_ALLOW: ' Mirror.Example. , *.cdn.example ,,',
    };
    const hosts = registryHosts(env);
    for (const h of [
      'npm.corp.example',
      'pypi.corp.example',
      'extra1.example',
      'extra2.example',
      'uv.example',
      'uv-default.example',
      'goproxy.corp.example',
      'goproxy2.example',
      'cargo.corp.example',
      'mirror.example',
      '*.cdn.example',
    ]) {
      expect(hosts).toContain(h);
    }
    expect(hosts).not.toContain('direct');
    expect(hosts).not.toContain('off');
    expect(registryPorts(env)).toEqual([443, 80, 8443]);
  });

  it('ignores what is not an http(s) URL', () => {
    const hosts = registryHosts({ GOPROXY: 'file:///srv/goproxy', PIP_INDEX_URL: 'not a url', npm_config_registry: '' });
    expect(hosts).toHaveLength(12);
  });

  it('SLOPGATE_EGRESS=off switches the network off, with the reason', () => {
    expect(egressOff({})).toBeNull();
    expect(egressOff({ SLOPGATE_EGRESS: 'on' })).toBeNull();
    expect(egressOff({ SLOPGATE_EGRESS: 'off' })).toMatch(/SLOPGATE_EGRESS=off/);
    expect(egressOff({ SLOPGATE_EGRESS: 'OFF' })).toMatch(/SLOPGATE_EGRESS=off/);
  });
});

describe('proxy variables in the sandbox environment', () => {
  const base = { home: '/h', tmp: '/t', cacheDir: '/c' };
  const host = {
    PATH: '/usr/bin',
    HTTPS_PROXY: 'http://corp-proxy:3128',
    npm_config_https_proxy: 'http://corp:1',
    ALL_PROXY: 'socks5://x',
  };

  it("never carries the host's proxy settings, nor a caller's", () => {
    const env = sandboxEnv({ ...base, network: false, from: host, extra: { PIP_PROXY: 'http://x:1', no_proxy: '*' } });
    expect(Object.keys(env).filter((k) => /proxy/i.test(k) && k !== 'GOPROXY')).toEqual([]);
    expect(env.GOPROXY).toBe('off');
  });

  it('with the egress proxy, points every installer at the forwarder and keeps loopback direct', () => {
    const env = sandboxEnv({ ...base, network: true, proxy: egressEnv(), from: host, extra: { HTTPS_PROXY: 'http://evil:1' } });
    for (const k of [
      'HTTP_PROXY',
      'HTTPS_PROXY',
      'http_proxy',
      'https_proxy',
      'npm_config_proxy',
      'npm_config_https_proxy',
      'CARGO_HTTP_PROXY',
      'PIP_PROXY',
    ]) {
      expect(env[k], k).toBe('http://127.0.0.1:3128');
    }
    expect(env.NO_PROXY).toBe('localhost,127.0.0.1,::1');
    expect(env.ALL_PROXY).toBeUndefined();
    expect(env.GOPROXY).toBeUndefined();
    expect(env.npm_config_offline).toBeUndefined();
  });
});
