import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Report } from '../../src/core/report.js';
import { prRepo, removeTestRepos } from '../helpers/git-repo.js';
import { needs } from '../helpers/toolchains.js';

/**
 * A Rust toolchain without the clippy component: G16 skips clippy naming the cause and cargo's own
 * words, and never passes it. The machine's cargo is put behind a stand-in first on PATH that
 * answers `cargo clippy` as cargo does when the component is missing and hands everything else to
 * the real cargo. Its own file, so that the sandbox's toolchain probe (once per process) sees it.
 */

const realCargo = spawnSync('sh', ['-c', 'command -v cargo'], { encoding: 'utf8' }).stdout.trim();
// Not under the system's /tmp, which the sandbox covers with its own: the repository's ignored tmp/.
mkdirSync(join(process.cwd(), 'tmp'), { recursive: true });
const dir = mkdtempSync(join(process.cwd(), 'tmp', 'no-clippy-'));
const bin = join(dir, 'bin');
mkdirSync(bin);
writeFileSync(
  join(bin, 'cargo'),
  `#!/bin/sh\nif [ "$1" = clippy ]; then echo "error: 'cargo-clippy' is not installed for the toolchain 'stable-x86_64-unknown-linux-gnu'." >&2; exit 1; fi\nexec ${realCargo} "$@"\n`,
);
chmodSync(join(bin, 'cargo'), 0o755);
chmodSync(dir, 0o755);
const savedPath = process.env.PATH;
process.env.PATH = `${bin}:${savedPath ?? ''}`;
const cache = mkdtempSync(join(tmpdir(), 'slopgate-no-clippy-deps-'));

afterAll(() => {
  process.env.PATH = savedPath;
  removeTestRepos();
  rmSync(dir, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

needs('cargo', 'bwrap')('G16 without the clippy component (real CLI)', () => {
  it('is a skip naming the missing component and cargo’s words, never a finding or a pass', async () => {
    const repo = prRepo(
      {
        'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
        'src/lib.rs': '/// Adds.\npub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n',
        '.github/workflows/ci.yml':
          'on: push\njobs:\n  lint:\n    runs-on: x\n    steps:\n      - run: cargo clippy --all-targets -- -D warnings\n',
      },
      { 'src/lib.rs': '/// Adds.\npub fn add(a: i64, b: i64) -> i64 {\n    return a + b;\n}\n' },
    );
    const saved = process.env.SLOPGATE_DEPS_CACHE_DIR;
    process.env.SLOPGATE_DEPS_CACHE_DIR = cache;
    let out = '';
    try {
      await main(['check', '--repo', repo.dir, '--base', 'main', '--head', 'pr', '--format', 'json', '--only', 'G16'], (s) => (out += s));
    } finally {
      if (saved === undefined) delete process.env.SLOPGATE_DEPS_CACHE_DIR;
      else process.env.SLOPGATE_DEPS_CACHE_DIR = saved;
    }
    const report = JSON.parse(out) as Report;
    expect(report.findings.filter((f) => f.guard === 'G16')).toEqual([]);
    expect(report.sections.checks?.checks).toEqual([
      expect.objectContaining({
        tool: 'clippy',
        status: 'skipped',
        reason:
          "clippy is not installed in the Rust toolchain slopgate runs (add it with `rustup component add clippy`): `error: 'cargo-clippy' is not installed for the toolchain 'stable-x86_64-unknown-linux-gnu'.`",
      }),
    ]);
    expect(report.guards.find((g) => g.id === 'G16')?.status).toBe('skipped');
  }, 300_000);
});
