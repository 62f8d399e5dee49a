import { relative } from 'node:path';
import { z } from 'zod';
import { parseJsonAs } from '../../core/parse-data.js';
import type { UnitStatus } from '../../core/suite-result.js';
import { shortMessage } from './runner.js';

/** One test target as cargo's JSON build messages describe it. */
export interface CargoTarget {
  pkg: string;
  kind: string;
  name: string;
  /** Source path relative to the workdir. */
  src: string;
}

export interface CargoBuild {
  /** Test executables that built (lib/bin/test targets with `profile.test`). */
  built: CargoTarget[];
  /** Targets with compile errors, as broken units. */
  broken: UnitStatus[];
  /** Packages whose plain (non-test) lib built, so doc tests can run. */
  libs: Set<string>;
}

/** One line of `cargo build --message-format=json`: the fields read here. */
const cargoMessage = z.object({
  reason: z.string(),
  package_id: z.string().optional(),
  target: z.object({ kind: z.array(z.string()), name: z.string(), src_path: z.string() }).optional(),
  profile: z.object({ test: z.boolean().optional() }).optional(),
  executable: z.string().nullable().optional(),
  message: z.object({ level: z.string().optional(), rendered: z.string().optional() }).optional(),
});

/** Package name from a package id (`path+file:///x#name@0.1.0`, `name 0.1.0 (path+file:///x)`). */
export function cargoPackageName(id: string): string {
  const hash = /#(?:([^@#]+)@)?[^#]*$/.exec(id);
  if (hash?.[1]) return hash[1];
  if (hash && !hash[1]) return id.slice(id.lastIndexOf('/') + 1).replace(/#.*/, '');
  return id.split(' ')[0] ?? id;
}

/** Units are keyed by target source file; a Rust package's targets share a group. */
export function rustUnitId(src: string): string {
  return `rust:${src}`;
}

export function parseCargoBuild(jsonLines: string, workdir: string): CargoBuild {
  const built: CargoTarget[] = [];
  const broken = new Map<string, UnitStatus>();
  const libs = new Set<string>();
  for (const line of jsonLines.split('\n')) {
    if (!line.startsWith('{')) continue;
    let m: z.infer<typeof cargoMessage>;
    try {
      m = parseJsonAs(cargoMessage, line, 'a cargo JSON message');
    } catch {
      continue; // a line a build script printed, not a message
    }
    if (!m.target || !m.package_id) continue;
    const target: CargoTarget = {
      pkg: cargoPackageName(m.package_id),
      kind: m.target.kind[0] ?? 'lib',
      name: m.target.name,
      src: relative(workdir, m.target.src_path),
    };
    if (m.reason === 'compiler-artifact') {
      if (m.profile?.test && m.executable) built.push(target);
      else if (['lib', 'rlib', 'proc-macro'].includes(target.kind) && !m.profile?.test) libs.add(target.pkg);
    } else if (m.reason === 'compiler-message' && m.message?.level === 'error') {
      const id = rustUnitId(target.src);
      const prev = broken.get(id);
      const text = [prev?.message, m.message.rendered].filter(Boolean).join('\n');
      broken.set(id, {
        id,
        kind: 'target',
        group: `rust-pkg:${target.pkg}`,
        status: 'broken',
        file: target.src,
        message: shortMessage(text, 14, 1500) ?? 'compile error',
      });
    }
  }
  return { built, broken: [...broken.values()], libs };
}

/** Flags selecting the test targets that built, one `cargo test` per package (doc tests separately). */
export function cargoTestCommands(build: CargoBuild, extraArgs: string): string[] {
  const byPkg = new Map<string, string[]>();
  for (const t of build.built) {
    const flags = byPkg.get(t.pkg) ?? [];
    if (t.kind === 'lib' || t.kind === 'rlib' || t.kind === 'proc-macro') flags.push('--lib');
    else if (t.kind === 'bin') flags.push(`--bin '${t.name}'`);
    else if (t.kind === 'test') flags.push(`--test '${t.name}'`);
    else if (t.kind === 'example') flags.push(`--example '${t.name}'`);
    else if (t.kind === 'bench') flags.push(`--bench '${t.name}'`);
    byPkg.set(t.pkg, flags);
  }
  const cmds: string[] = [];
  for (const [pkg, flags] of byPkg) cmds.push(`cargo test --no-fail-fast -p '${pkg}' ${[...new Set(flags)].join(' ')}${extraArgs}`);
  for (const pkg of build.libs)
    if (!build.broken.some((u) => u.group === `rust-pkg:${pkg}`)) cmds.push(`cargo test --no-fail-fast -p '${pkg}' --doc${extraArgs}`);
  return cmds;
}
