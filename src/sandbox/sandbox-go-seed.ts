import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync } from 'node:fs';
import { cp, mkdir, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSandboxed } from './sandbox.js';
import { makeScratchDir } from '../core/scratch.js';

/**
 * A warm Go build cache for runs that must not share a writable one. Each run gets its own GOCACHE
 * (a PR's tests could otherwise plant build outputs that a later run links), which would make every
 * run compile the standard library's test dependencies again (20–60 s on a small machine). So
 * slopgate builds a seed once per Go toolchain — from a test module it writes itself, never from a
 * repository's code — and each run starts from a private copy of it (a few MB).
 */

const SEED_TEST = `package seed

import (
\t"bytes"
\t"context"
\t"encoding/json"
\t"errors"
\t"fmt"
\t"io"
\t"net/http"
\t"net/http/httptest"
\t"os"
\t"path/filepath"
\t"regexp"
\t"sort"
\t"strconv"
\t"strings"
\t"sync"
\t"testing"
\t"time"
)

var _ = []interface{}{bytes.NewBuffer, context.Background, json.Marshal, errors.New, fmt.Sprint, io.EOF, http.NewRequest, httptest.NewRecorder, os.Getenv, filepath.Join, regexp.MustCompile, sort.Ints, strconv.Itoa, strings.Fields, time.Now, new(sync.Once)}

func TestSeed(t *testing.T) {}
`;

let pending: Promise<string | null> | undefined;

/** `go env` with `home` as HOME: go writes its telemetry files there (never into the temp dir itself). */
function goVersion(home: string): string | null {
  try {
    return execFileSync('go', ['env', 'GOVERSION', 'GOROOT', 'GOARCH'], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
    }).trim();
  } catch {
    return null;
  }
}

/** The seed dir for this machine's Go, built on first use; null when Go is missing or the build fails. */
export function goCacheSeed(opts: { memoryMb: number; maxProcesses: number; timeoutMs?: number }): Promise<string | null> {
  pending ??= build(opts).catch(() => null);
  return pending;
}

async function build(opts: { memoryMb: number; maxProcesses: number; timeoutMs?: number }): Promise<string | null> {
  // The build's folder is a scratch folder (core/scratch.ts) next to the seeds, on the same filesystem for the rename.
  const scratch = await makeScratchDir('go-seed-build');
  const work = scratch.path;
  try {
    await mkdir(join(work, 'home'));
    const version = goVersion(join(work, 'home'));
    if (!version) return null;
    const base = join(tmpdir(), `slopgate-go-seed-${process.getuid?.() ?? 0}`);
    await mkdir(base, { recursive: true, mode: 0o700 });
    // Only a dir this user owns and nobody else can write is trusted.
    const st = lstatSync(base);
    if (!st.isDirectory() || st.uid !== (process.getuid?.() ?? st.uid) || (st.mode & 0o022) !== 0) return null;
    const dir = join(base, createHash('sha256').update(version).digest('hex').slice(0, 16));
    if (existsSync(join(dir, 'README'))) return dir;
    for (const d of ['src', 'tmp', 'cache/go-build']) await mkdir(join(work, d), { recursive: true });
    await writeFile(join(work, 'src', 'go.mod'), 'module slopgate.invalid/seed\n\ngo 1.18\n');
    await writeFile(join(work, 'src', 'seed_test.go'), SEED_TEST);
    const r = await runSandboxed({
      command: 'go test -count=1 -json ./... > /dev/null && go vet ./...',
      cwd: join(work, 'src'),
      home: join(work, 'home'),
      tmp: join(work, 'tmp'),
      cacheDir: join(work, 'cache'),
      writable: [work],
      timeoutMs: opts.timeoutMs ?? 300_000,
      memoryMb: Math.max(opts.memoryMb, 1024),
      maxProcesses: Math.max(opts.maxProcesses, 128),
    });
    if (r.exitCode !== 0 || r.refused) return null;
    await writeFile(
      join(work, 'cache', 'go-build', 'README'),
      `Go build cache seed for ${version.split('\n')[0]}, built by slopgate from its own test module.\n`,
    );
    try {
      await rename(join(work, 'cache', 'go-build'), dir);
    } catch {
      // another process finished first
    }
    return existsSync(join(dir, 'README')) ? dir : null;
  } finally {
    await scratch.remove();
  }
}

/** Copies the seed into a run's own GOCACHE (when the tree is a Go module). */
export async function seedGoCache(treeDir: string, goCache: string, opts: { memoryMb: number; maxProcesses: number }): Promise<boolean> {
  if (!existsSync(join(treeDir, 'go.mod'))) return false;
  const seed = await goCacheSeed(opts);
  if (!seed) return false;
  await cp(seed, goCache, { recursive: true, force: false, errorOnExist: false });
  return true;
}
