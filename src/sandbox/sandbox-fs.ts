import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve, sep } from 'node:path';
import { makeScratchDirSync } from '../core/scratch.js';

/**
 * What the test sandbox sees of the host's filesystem, as bwrap arguments. Everything is read-only
 * except the run's own tree; nothing else of the host is mounted:
 * - /usr and the /bin, /sbin, /lib* links or dirs;
 * - from /etc only what programs need to start (dynamic linker config, alternatives, certificates,
 *   time zone, nsswitch) plus a generated passwd/group/hosts (no resolv.conf: the egress proxy
 *   resolves names, the sandbox never does);
 * - toolchains found from the binaries on PATH (e.g. /root/.cargo, /root/.rustup, /root/.pyenv,
 *   /opt/node) — never a whole home directory, and with credential files masked;
 * - read-only shared caches (Go module cache, cargo registry) when they exist.
 * No /run, /var, /sys, no host /tmp, no sockets, no slopgate work dir.
 */

/** Directories that are mounted as a whole anyway. */
const SYSTEM_ROOTS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** /etc entries a toolchain may need; each is bound read-only when it exists. */
const ETC_ENTRIES = [
  'alternatives',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'pki',
  'crypto-policies',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'nsswitch.conf',
  'host.conf',
  'gai.conf',
  'protocols',
  'services',
  'mime.types',
  'os-release',
  'debian_version',
  'java-17-openjdk',
  'java-21-openjdk',
  // Debian's Maven: its launcher config and logging (not /etc/maven/settings.xml, which may hold the operator's credentials).
  'maven/m2.conf',
  'maven/logging',
];

/** Files in a toolchain root that may hold credentials; hidden behind /dev/null. */
const CREDENTIAL_FILES = [
  'credentials',
  'credentials.toml',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '.git-credentials',
  '.env',
  '.docker',
  '.ssh',
  '.aws',
  'config.json',
  'auth.json',
];

/** Binaries whose real location decides which toolchain roots are mounted. */
const TOOLS = [
  'node',
  'npm',
  'npx',
  'yarn',
  'pnpm',
  'bun',
  'deno',
  'python',
  'python3',
  'pytest',
  'pip',
  'pip3',
  'uv',
  'go',
  'gofmt',
  'cargo',
  'rustc',
  'rustup',
  'java',
  'mvn',
  'gradle',
  'git',
  'make',
  'gcc',
  'cc',
];

/** The uid and gid the PR's code runs as inside the sandbox. */
export const SANDBOX_UID = 1000;
export const SANDBOX_GID = 1000;

function under(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function isSystem(path: string): boolean {
  return SYSTEM_ROOTS.some((r) => under(path, r));
}

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The root of the toolchain a binary dir belongs to: `<root>/bin` or `<root>/shims` → `<root>`. */
function toolchainRootOf(binDir: string): string {
  const home = homedir();
  let root = /\/(bin|sbin|shims)$/.test(binDir) ? dirname(binDir) : binDir;
  // pyenv plugins: /root/.pyenv/plugins/x/shims belongs to /root/.pyenv.
  const plugins = root.indexOf(`${sep}plugins${sep}`);
  if (plugins > 0) root = root.slice(0, plugins);
  // Never a whole home (or /), only a tool's own dir inside it.
  if (root === home || root === '/' || root === dirname(home)) return binDir;
  return root;
}

/** Removes roots nested in other roots. */
function outermost(paths: Iterable<string>): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const p of sorted) if (!out.some((o) => under(p, o))) out.push(p);
  return out.sort();
}

export interface ToolchainMounts {
  /** Read-only toolchain roots outside the system dirs. */
  roots: string[];
  /** The directories of PATH that exist inside the sandbox. */
  path: string;
  /** RUSTUP_HOME, PYENV_ROOT, GOROOT when found. */
  env: Record<string, string>;
  /** Read-only shared caches. */
  goModCache?: string;
  cargoRegistry?: string;
  cargoGit?: string;
}

/**
 * Finds the toolchains on PATH. Called once per process (the result is cached by the probe); the
 * host's environment is read here, never passed into the sandbox.
 */
export function findToolchains(env: NodeJS.ProcessEnv = process.env): ToolchainMounts {
  const home = homedir();
  const pathDirs = (env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter).filter((d) => d.startsWith('/'));
  const roots: string[] = [];
  const keptPath: string[] = [];
  for (const dir of pathDirs) {
    const r = real(dir);
    if (!r || !statSync(r).isDirectory() || dir.includes('/node_modules/')) continue;
    if (!keptPath.includes(dir)) keptPath.push(dir);
    if (!isSystem(r)) roots.push(toolchainRootOf(r));
    if (!isSystem(dir) && dir !== r) roots.push(toolchainRootOf(dir));
  }
  for (const tool of TOOLS) {
    for (const dir of pathDirs) {
      const bin = join(dir, tool);
      if (!existsSync(bin)) continue;
      const r = real(bin);
      if (r && !isSystem(r)) roots.push(toolchainRootOf(dirname(r)));
      break;
    }
  }
  const out: Record<string, string> = {};
  const rustup = env.RUSTUP_HOME ?? join(home, '.rustup');
  if (existsSync(rustup)) {
    roots.push(rustup);
    out.RUSTUP_HOME = rustup;
  }
  const pyenv = env.PYENV_ROOT ?? join(home, '.pyenv');
  if (existsSync(pyenv) && roots.some((r) => under(r, pyenv))) {
    roots.push(pyenv);
    out.PYENV_ROOT = pyenv;
  }
  if (env.GOROOT && existsSync(env.GOROOT)) {
    out.GOROOT = env.GOROOT;
    if (!isSystem(real(env.GOROOT) ?? '/usr')) roots.push(env.GOROOT);
  }
  const goMod = env.GOMODCACHE ?? join(env.GOPATH?.split(delimiter)[0] ?? join(home, 'go'), 'pkg', 'mod');
  const cargoHome = env.CARGO_HOME ?? join(home, '.cargo');
  const result: ToolchainMounts = { roots: outermost(roots.filter((r) => r !== '/' && r !== home)), path: keptPath.join(':'), env: out };
  if (existsSync(goMod)) result.goModCache = goMod;
  if (existsSync(join(cargoHome, 'registry'))) result.cargoRegistry = join(cargoHome, 'registry');
  if (existsSync(join(cargoHome, 'git'))) result.cargoGit = join(cargoHome, 'git');
  return result;
}

/** Writes a file by rename, so a sandbox that bound the previous one never sees it truncated. */
function writeAtomic(path: string, content: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, content, { mode: 0o644 });
  renameSync(tmp, path);
}

let etcDir: string | undefined;
/** Runs using each generated passwd file (base and head, or G16's tools, may share a HOME at once). */
const passwdUsers = new Map<string, number>();

/**
 * Generated /etc files (passwd, group, hosts) in this process's own scratch folder (core/scratch.ts),
 * which goes when the process ends. passwd names the run's HOME (Java's `user.home` comes from it, not
 * from $HOME), so each home gets its own file: runs side by side (base and head) must not see each
 * other's. A home's file is removed when its last run ends ({@link releaseGeneratedEtc}); group and
 * hosts are the same for every run and written once.
 */
function generatedEtc(home: string): { passwd: string; group: string; hosts: string } {
  if (!etcDir || !existsSync(etcDir)) {
    etcDir = makeScratchDirSync('sandbox-etc').path;
    chmodSync(etcDir, 0o755);
    writeAtomic(join(etcDir, 'group'), `root:x:0:\nsandbox:x:${SANDBOX_GID}:\nnogroup:x:65534:\n`);
    writeAtomic(join(etcDir, 'hosts'), '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n');
  }
  const passwd = passwdFile(home);
  const users = passwdUsers.get(passwd) ?? 0;
  if (users === 0 || !existsSync(passwd))
    writeAtomic(
      passwd,
      `root:x:0:0:root:/nonexistent:/usr/sbin/nologin\nsandbox:x:${SANDBOX_UID}:${SANDBOX_GID}:slopgate sandbox:${home}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    );
  passwdUsers.set(passwd, users + 1);
  return { passwd, group: join(etcDir, 'group'), hosts: join(etcDir, 'hosts') };
}

function passwdFile(home: string): string {
  return join(etcDir ?? '', `passwd-${createHash('sha256').update(home).digest('hex').slice(0, 16)}`);
}

/** A run that used {@link fsArgs} for `home` ended: the home's passwd file goes with its last run. */
export function releaseGeneratedEtc(home: string): void {
  if (!etcDir) return;
  const passwd = passwdFile(home);
  const users = (passwdUsers.get(passwd) ?? 1) - 1;
  if (users > 0) {
    passwdUsers.set(passwd, users);
    return;
  }
  passwdUsers.delete(passwd);
  rmSync(passwd, { force: true });
}

/** bwrap arguments for one directory or symlink of the root (e.g. /lib64 → usr/lib64). */
function systemEntry(path: string): string[] {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return [];
  }
  if (st.isSymbolicLink()) return ['--symlink', readlinkSync(path), path];
  if (st.isDirectory()) return ['--ro-bind', path, path];
  return [];
}

export interface FsLayoutOptions {
  /** The run's tree (bound read-write at the same path). */
  runRoot: string;
  home: string;
  /** Size cap (bytes) of the private /tmp and /dev/shm. */
  tmpBytes: number;
  toolchains: ToolchainMounts;
  /** Where the run's private cargo home is (a read-only registry is mounted into it). */
  cargoHome?: string;
  /** Extra read-only paths the operator shares with every run (SLOPGATE_SANDBOX_RO_PATHS). */
  extraReadOnly?: string[];
  /** Installed dependencies (and an install's own staging dir), bound after the run's tree so they may sit inside it. */
  binds?: { src: string; dest: string; writable?: boolean }[];
  /** Private tmpfs dirs mounted last (writable caches inside a read-only node_modules). */
  tmpfs?: string[];
}

/**
 * Extra read-only paths from the operator's environment (colon-separated absolute paths), e.g. a
 * shared node_modules or a toolchain outside PATH. Relative paths and / are ignored.
 */
export function operatorReadOnlyPaths(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.SLOPGATE_SANDBOX_RO_PATHS ?? '')
    .split(delimiter)
    .filter((p) => p.startsWith('/') && p !== '/' && existsSync(p))
    .map((p) => resolve(p));
}

export function fsArgs(o: FsLayoutOptions): string[] {
  const args: string[] = [];
  for (const p of SYSTEM_ROOTS) args.push(...systemEntry(p));
  for (const name of ETC_ENTRIES) if (existsSync(join('/etc', name))) args.push('--ro-bind', join('/etc', name), join('/etc', name));
  const etc = generatedEtc(o.home);
  args.push('--ro-bind', etc.passwd, '/etc/passwd', '--ro-bind', etc.group, '/etc/group', '--ro-bind', etc.hosts, '/etc/hosts');
  for (const root of o.toolchains.roots) {
    if (!existsSync(root)) continue;
    args.push('--ro-bind', root, root);
    for (const f of CREDENTIAL_FILES) {
      const p = join(root, f);
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      args.push(...(st.isDirectory() ? ['--tmpfs', p] : ['--ro-bind', '/dev/null', p]));
    }
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  args.push('--size', String(o.tmpBytes), '--tmpfs', '/tmp');
  args.push('--size', String(o.tmpBytes), '--tmpfs', '/dev/shm');
  // After the fresh /tmp: a cache or an operator path that lives under /tmp must not be covered by it.
  if (o.toolchains.goModCache) args.push('--ro-bind', o.toolchains.goModCache, o.toolchains.goModCache);
  for (const p of o.extraReadOnly ?? []) args.push('--ro-bind', p, p);
  // The run's own tree, read-write; bound last so that nothing above can cover it.
  args.push('--bind', o.runRoot, o.runRoot);
  if (o.cargoHome) {
    if (o.toolchains.cargoRegistry) args.push('--ro-bind', o.toolchains.cargoRegistry, join(o.cargoHome, 'registry'));
    if (o.toolchains.cargoGit) args.push('--ro-bind', o.toolchains.cargoGit, join(o.cargoHome, 'git'));
  }
  for (const b of o.binds ?? []) args.push(b.writable ? '--bind' : '--ro-bind', b.src, b.dest);
  for (const t of o.tmpfs ?? []) args.push('--size', String(Math.min(o.tmpBytes, 512 * 1024 * 1024)), '--tmpfs', t);
  return args;
}

/** For messages: a path relative to the run root when inside it. */
export function insideRun(path: string, runRoot: string): boolean {
  return under(resolve(path), resolve(runRoot));
}
