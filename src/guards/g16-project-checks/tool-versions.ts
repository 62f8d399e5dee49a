import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Revision } from '../../core/revision.js';
import { matchToolchain, pinnedRustToolchain } from '../../testgate/index.js';
import type { DiscoveredCheck, ToolchainPin } from './discover.js';

/**
 * Which Go or Rust the project's CI formats with, and whether slopgate can run that one: gofmt and
 * rustfmt print what their release prints, so a file the machine's release rejects may be one the
 * project's accepts. The pin is read from the base: the job that runs the check (`actions/setup-go`'s
 * `go-version`, `dtolnay/rust-toolchain@1.97`, a `toolchain:` input, `rustup toolchain install`), then
 * `rust-toolchain(.toml)` (rustup prefers it over the job's default) or go.mod's `toolchain` line.
 */

const exec = promisify(execFile);

export interface FormatterToolchain {
  /** rustfmt: run through rustup with this toolchain (an installed one the pin names). */
  rustupToolchain?: string;
  /** gofmt: the binary of the pinned Go, fetched the Go way (GOTOOLCHAIN). */
  gofmtPath?: string;
  /** Set when the pinned release could not be had: why the finding is only a risk, naming both versions. */
  mismatch?: string;
}

/** `1.97`, `1.97.0`, `go1.22.3` → [major, minor]; null for a channel (`stable`, `nightly-…`). */
function majorMinor(v: string): [number, number] | null {
  const m = /^(?:go)?(\d+)\.(\d+)(?:\.\d+)?$/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2])] : null;
}

export function sameRelease(a: string, b: string): boolean {
  const x = majorMinor(a);
  const y = majorMinor(b);
  return x !== null && y !== null && x[0] === y[0] && x[1] === y[1];
}

/** The project's pin for the formatter: the check's own job first for Go; the toolchain file first for Rust. */
export async function pinFor(tool: 'gofmt' | 'rustfmt', check: DiscoveredCheck, base: Revision): Promise<ToolchainPin | null> {
  if (tool === 'rustfmt') {
    for (const path of ['rust-toolchain.toml', 'rust-toolchain']) {
      const channel = pinnedRustToolchain(await base.readText(path));
      if (channel) return { version: channel, where: path };
    }
    return check.pins?.rust ?? null;
  }
  if (check.pins?.go) {
    if (check.pins.go.version !== 'go.mod') return check.pins.go;
    const fromMod = goModPin(await base.readText('go.mod'), true);
    return fromMod ? { ...fromMod, where: `${fromMod.where} (${check.pins.go.where})` } : null;
  }
  return goModPin(await base.readText('go.mod'), false);
}

/** go.mod's `toolchain` line (with `goLine`, its `go` line when there is none: setup-go's `go-version-file`). */
function goModPin(text: string | null, goLine: boolean): ToolchainPin | null {
  if (text === null) return null;
  const toolchain = /^toolchain\s+go(\d+\.\d+(?:\.\d+)?)\s*$/m.exec(text)?.[1];
  if (toolchain) return { version: toolchain, where: 'go.mod `toolchain`' };
  const go = goLine ? /^go\s+(\d+\.\d+(?:\.\d+)?)\s*$/m.exec(text)?.[1] : undefined;
  return go ? { version: go, where: 'go.mod `go`' } : null;
}

const asked = new Map<string, Promise<string | null>>();
function once(key: string, ask: () => Promise<string | null>): Promise<string | null> {
  let p = asked.get(key);
  if (!p) {
    p = ask().catch(() => null);
    asked.set(key, p);
  }
  return p;
}

/** The variables the toolchain launchers need, and the network settings the Go command fetches with. */
function launcherEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { LC_ALL: 'C' };
  const keep = ['PATH', 'HOME', 'GOROOT', 'GOPATH', 'GOMODCACHE', 'GOPROXY', 'GOSUMDB', 'CARGO_HOME', 'RUSTUP_HOME'];
  for (const k of [...keep, 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...extra };
}

/** Runs a launcher in an empty private directory (no toolchain file of anyone's takes part). */
async function ask(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeout: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'slopgate-ver-'));
  try {
    const r = await exec(cmd, args, { cwd: dir, env, timeout, maxBuffer: 1024 * 1024 });
    return r.stdout.trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const machineRustc = () =>
  once('rustc', async () => /rustc (\d+\.\d+\.\d+)/.exec(await ask('rustc', ['--version'], launcherEnv(), 20_000))?.[1] ?? null);
const machineGo = () =>
  once('go', async () => (await ask('go', ['env', 'GOVERSION'], launcherEnv({ GOTOOLCHAIN: 'local' }), 20_000)).replace(/^go/, '') || null);
const rustupList = () => once('rustup', () => ask('rustup', ['toolchain', 'list'], launcherEnv(), 20_000));

/** The Go toolchain name for a pin (`1.22` → `go1.22.0`): toolchains are fetchable from Go 1.21 on. */
function goToolchainName(version: string): string | null {
  const mm = majorMinor(version);
  if (mm?.[0] !== 1 || mm[1] < 21) return null;
  return `go${/^\d+\.\d+$/.test(version) ? `${version}.0` : version}`;
}

/** How to run the project's formatter release, or why it cannot be run (the finding then names both). */
export async function formatterToolchain(tool: 'gofmt' | 'rustfmt', pin: ToolchainPin | null): Promise<FormatterToolchain> {
  if (!pin) return {};
  if (tool === 'rustfmt') {
    if (pin.version === 'stable') return {};
    const rustc = await machineRustc();
    if (rustc && sameRelease(pin.version, rustc)) return {};
    const installed = matchToolchain(
      pin.version,
      ((await rustupList()) ?? '').split('\n').filter((l) => l.trim()),
    );
    if (installed) return { rustupToolchain: installed };
    return {
      mismatch: `the project's CI formats with Rust ${pin.version} (${pin.where}), which is not installed here; slopgate ran rustfmt of Rust ${rustc ?? 'unknown'}, whose layout can differ`,
    };
  }
  const go = await machineGo();
  if (go && sameRelease(pin.version, go)) return {};
  const name = goToolchainName(pin.version);
  if (name) {
    // the Go command fetches the toolchain from the module proxy into the module cache (once per release)
    const root = await once(`go:${name}`, () => ask('go', ['env', 'GOROOT'], launcherEnv({ GOTOOLCHAIN: name }), 90_000));
    if (root) return { gofmtPath: join(root, 'bin', 'gofmt') };
  }
  return {
    mismatch: `the project's CI formats with Go ${pin.version} (${pin.where}), which slopgate could not fetch; it ran gofmt of Go ${go ?? 'unknown'}, whose layout can differ`,
  };
}
