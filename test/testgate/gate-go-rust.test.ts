import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findToolchains } from '../../src/sandbox/sandbox-fs.js';
import { overrideSandboxCapabilities, sandboxCapabilities } from '../../src/sandbox/sandbox-probe.js';
import { prRepo, TestRepo } from '../helpers/git-repo.js';
import { MemoryBaselineCache } from '../../src/testgate/baseline-cache.js';
import { gateTests, sandboxCacheDir, testsSection } from './fixtures.js';
import { goCacheSeed } from '../../src/sandbox/sandbox-go-seed.js';

const cache = sandboxCacheDir();
const mkdirp = (dir: string) => {
  mkdirSync(dir, { recursive: true });
  return dir;
};
afterAll(() => cache.remove());
// Every run starts from a private copy of slopgate's Go cache seed; build it once, outside the test budgets.
beforeAll(() => goCacheSeed({ memoryMb: 4096, maxProcesses: 512 }), 300_000);

const HANDLER = `package api

import (
	"fmt"
	"net/http"
)

// Greet answers GET /greet?name=… with a greeting.
func Greet(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if name == "" {
		http.Error(w, "missing name", http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "hello, %s", name)
}
`;

const HANDLER_TEST = `package api

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestGreet(t *testing.T) {
	rec := httptest.NewRecorder()
	Greet(rec, httptest.NewRequest(http.MethodGet, "/greet?name=ada", nil))
	if got := rec.Body.String(); got != "hello, ada" {
		t.Fatalf("body = %q", got)
	}
}

func TestGreetNeedsName(t *testing.T) {
	rec := httptest.NewRecorder()
	Greet(rec, httptest.NewRequest(http.MethodGet, "/greet", nil))
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("code = %d", rec.Code)
	}
}
`;
import { needs } from '../helpers/toolchains.js';

const GO = {
  'go.mod': 'module example.com/svc\n\ngo 1.19\n',
  'api/greet.go': HANDLER,
  'api/greet_test.go': HANDLER_TEST,
  'util/util.go': 'package util\n\nfunc Double(x int) int { return x * 2 }\n',
};

needs('go')('G8 on Go repositories', () => {
  it('a handler whose body changed fails its test: test-regression at `func TestGreet`', async () => {
    const repo = prRepo(GO, { 'api/greet.go': HANDLER.replace('"hello, %s", name', '"Hello %s!", name') });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 1 } });
    const f = report.findings.filter((x) => x.category === 'test-regression');
    expect(f.map((x) => [x.path, x.line])).toEqual([['api/greet_test.go', 9]]);
    expect(f[0]!.message).toContain('example.com/svc/api.TestGreet');
    expect(testsSection(report)).toMatchObject({ runner: 'go', regressions: ['go:example.com/svc/api.TestGreet'] });
  }, 240_000);

  it('a package that no longer compiles is build-broken for that package, and its tests are not "removed"', async () => {
    const repo = prRepo(GO, { 'api/greet.go': HANDLER.replace('fmt.Fprintf(w, "hello, %s", name)', 'fmt.Fprintf(w, "hello, %s", nam)') });
    const report = await gateTests(repo, { cacheDir: cache.dir });
    expect(report.findings.map((f) => f.category)).toEqual(['build-broken']);
    expect(report.findings[0]).toMatchObject({ path: 'api', severity: 'fail' });
    expect(report.findings[0]!.message).toMatch(/Go package `example.com\/svc\/api` no longer builds.*undefined: nam/);
  }, 240_000);
});

const LIB = `/// Sum of the first \`n\` positive integers.
pub fn triangle(n: u32) -> u32 {
    (1..=n).sum()
}

/// Index of the last element.
pub fn last_index(items: &[u32]) -> Option<usize> {
    if items.is_empty() { None } else { Some(items.len() - 1) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangle_of_four() {
        assert_eq!(triangle(4), 10);
    }

    #[test]
    fn last_index_of_three() {
        assert_eq!(last_index(&[1, 2, 3]), Some(2));
    }
}
`;

needs('cargo')('G8 on a Rust crate (one fixture, several PRs on one cached baseline)', () => {
  const repo = TestRepo.create();
  repo
    .write({
      'Cargo.toml': '[package]\nname = "shapes"\nversion = "0.1.0"\nedition = "2021"\n',
      'src/lib.rs': LIB,
      'tests/api.rs': 'use shapes::triangle;\n\n#[test]\nfn triangle_of_one() {\n    assert_eq!(triangle(1), 1);\n}\n',
    })
    .commit('base');
  const branch = (name: string, files: Record<string, string>) => {
    repo.git('checkout', '-q', '-B', name, 'main');
    repo.write(files).commit(name);
  };
  branch('off-by-one', { 'src/lib.rs': LIB.replace('(1..=n).sum()', '(1..n).sum()') });
  branch('broken', {
    'tests/api.rs':
      'use shapes::triangle;\n\n#[test]\nfn triangle_of_one() {\n    let n: u32 = "one";\n    assert_eq!(triangle(n), 1);\n}\n',
  });
  const shared = new MemoryBaselineCache();

  it('an off-by-one in a function is a test regression in both the unit and the integration target', async () => {
    const report = await gateTests(repo, { cacheDir: cache.dir, cache: shared, head: 'off-by-one', tests: { reruns: 0 } });
    const s = testsSection(report);
    expect(s.runner).toBe('cargo');
    expect(s.regressions.sort()).toEqual(['rust:src/lib.rs::tests::triangle_of_four', 'rust:tests/api.rs::triangle_of_one']);
    const unit = report.findings.find((f) => f.message.includes('triangle_of_four'))!;
    expect(unit).toMatchObject({ category: 'test-regression', path: 'src/lib.rs', line: 16 });
  }, 240_000);

  it('an integration test that no longer compiles is build-broken for that target only', async () => {
    const report = await gateTests(repo, { cacheDir: cache.dir, cache: shared, head: 'broken', tests: { reruns: 0 } });
    expect(testsSection(report).baseline!.cached).toBe(true);
    expect(report.findings.map((f) => [f.category, f.path])).toEqual([['build-broken', 'tests/api.rs']]);
    expect(report.findings[0]!.message).toMatch(/Rust target `tests\/api.rs` no longer compiles.*mismatched types/);
    // the lib's own tests still ran at head
    expect(testsSection(report).candidate!.total).toBeGreaterThanOrEqual(2);
  }, 240_000);
});

describe('G8 names a dependency the offline sandbox cannot resolve (tests.install: off)', () => {
  // The operator's Go module cache (GOMODCACHE, ~/go/pkg/mod) is mounted read-only in the sandbox. What the
  // gate says must not depend on whether there is one: each shape is set up explicitly through the toolchain finder.
  const moduleCaches: [string, (root: string) => string][] = [
    ['no shared module cache', (root) => join(root, 'absent')],
    ['an empty shared module cache', (root) => mkdirp(join(root, 'mod'))],
    [
      'a shared module cache holding other modules',
      (root) => {
        const dir = mkdirp(join(root, 'mod'));
        mkdirp(join(dir, 'cache', 'download', 'golang.org', 'x', 'sync', '@v'));
        writeFileSync(join(dir, 'cache', 'download', 'golang.org', 'x', 'sync', '@v', 'list'), 'v0.1.0\n');
        return dir;
      },
    ],
  ];
  it.each(moduleCaches)(
    'Go: a module missing from the module cache is a skip naming the module and how to provide it (%s)',
    async (_label, makeCache) => {
      const root = mkdtempSync(join(tmpdir(), 'slopgate-gomodcache-'));
      const real = sandboxCapabilities();
      overrideSandboxCapabilities({ ...real, toolchains: findToolchains({ ...process.env, GOMODCACHE: makeCache(root) }) });
      try {
        const files = {
          'go.mod': 'module example.com/diffs\n\ngo 1.19\n\nrequire github.com/google/go-cmp v0.6.0\n',
          'go.sum':
            'github.com/google/go-cmp v0.6.0 h1:ofyhxvXcZhMsU5ulbFiLKl/XBFqE1GSq7atu8tAmTRI=\ngithub.com/google/go-cmp v0.6.0/go.mod h1:17dUlkBOakJ0+DkrSSNjCkIjxS6bF9zb3elmeNGIjoY=\n',
          'diff/diff.go':
            'package diff\n\nimport "github.com/google/go-cmp/cmp"\n\n// Of returns the difference between two values.\nfunc Of(a, b any) string { return cmp.Diff(a, b) }\n',
          'diff/diff_test.go':
            'package diff\n\nimport "testing"\n\nfunc TestSame(t *testing.T) {\n\tif Of(1, 1) != "" {\n\t\tt.Fatal("equal values differ")\n\t}\n}\n',
        };
        const repo = prRepo(files, { 'diff/diff.go': files['diff/diff.go'].replace('cmp.Diff(a, b)', 'cmp.Diff(b, a)') });
        const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0, install: 'off' } });
        expect(report.findings).toEqual([]);
        const g8 = report.guards.find((g) => g.id === 'G8')!;
        expect(g8.status).toBe('skipped');
        expect(g8.reason).toMatch(/^at the base, Go module `github.com\/google\/go-cmp@v0.6.0` could not be downloaded/);
        expect(g8.reason).toMatch(/go mod download.*tests\.setup.*tests\.network: true/);
      } finally {
        overrideSandboxCapabilities(real);
        rmSync(root, { recursive: true, force: true });
      }
    },
    240_000,
  );

  it('cargo: a crate the offline registry cache lacks is a skip naming the crate', async () => {
    const files = {
      'Cargo.toml': '[package]\nname = "fmtnum"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nitoa = "1"\n',
      'src/lib.rs':
        'pub fn show(n: u32) -> String {\n    itoa::Buffer::new().format(n).to_string()\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn shows() {\n        assert_eq!(super::show(7), "7");\n    }\n}\n',
    };
    const repo = prRepo(files, { 'src/lib.rs': files['src/lib.rs'].replace('"7"', '"8"') });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0, install: 'off' } });
    expect(report.findings).toEqual([]);
    const g8 = report.guards.find((g) => g.id === 'G8')!;
    expect(g8.status).toBe('skipped');
    expect(g8.reason).toMatch(/^at the base, the crate `itoa` could not be resolved/);
    expect(g8.reason).toMatch(/cargo fetch.*tests\.network: true|cargo vendor/);
  }, 240_000);

  it('with the dependency install on (the default) the same Go module and crate are fetched, and the tests run', async () => {
    const goFiles = {
      'go.mod': 'module example.com/diffs\n\ngo 1.19\n\nrequire github.com/google/go-cmp v0.6.0\n',
      'go.sum':
        'github.com/google/go-cmp v0.6.0 h1:ofyhxvXcZhMsU5ulbFiLKl/XBFqE1GSq7atu8tAmTRI=\ngithub.com/google/go-cmp v0.6.0/go.mod h1:17dUlkBOakJ0+DkrSSNjCkIjxS6bF9zb3elmeNGIjoY=\n',
      'diff/diff.go': 'package diff\n\nimport "github.com/google/go-cmp/cmp"\n\nfunc Of(a, b any) string { return cmp.Diff(a, b) }\n',
      'diff/diff_test.go':
        'package diff\n\nimport "testing"\n\nfunc TestSame(t *testing.T) {\n\tif Of(1, 1) != "" {\n\t\tt.Fatal("equal values differ")\n\t}\n}\n',
    };
    const go = await gateTests(
      prRepo(goFiles, { 'diff/diff.go': goFiles['diff/diff.go'].replace('cmp.Diff(a, b)', '"x" + cmp.Diff(a, b)') }),
      {
        cacheDir: cache.dir,
        tests: { reruns: 0 },
      },
    );
    expect(testsSection(go).regressions).toEqual(['go:example.com/diffs/diff.TestSame']);
    expect(go.sections.tests?.dependencies?.base).toMatchObject({ ecosystem: 'go' });

    const rust = {
      'Cargo.toml': '[package]\nname = "fmtnum"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nitoa = "1"\n',
      'src/lib.rs':
        'pub fn show(n: u32) -> String {\n    itoa::Buffer::new().format(n).to_string()\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn shows() {\n        assert_eq!(super::show(7), "7");\n    }\n}\n',
    };
    const cargo = await gateTests(prRepo(rust, { 'src/lib.rs': rust['src/lib.rs'].replace('"7"', '"8"') }), {
      cacheDir: cache.dir,
      tests: { reruns: 0 },
    });
    expect(testsSection(cargo).regressions).toEqual(['rust:src/lib.rs::tests::shows']);
    expect(cargo.sections.tests?.dependencies?.base).toMatchObject({ ecosystem: 'cargo' });
  }, 600_000);

  it('Go: build tags and -short from the CI workflow are merged into the gate’s command (-race and -v dropped)', async () => {
    const files = {
      ...GO,
      '.github/workflows/go.yml':
        'on: [pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/setup-go@v5\n      - run: go vet ./...\n      - run: go test -race -v -short -tags extra ./...\n',
      'util/extra_test.go':
        '//go:build extra\n\npackage util\n\nimport "testing"\n\nfunc TestDoubleExtra(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal("Double(2) != 4")\n\t}\n}\n',
    };
    const repo = prRepo(files, { 'util/util.go': 'package util\n\nfunc Double(x int) int { return x * 3 }\n' });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 0 } });
    const s = testsSection(report);
    expect(s.internalCommand).toBe('go test -count=1 -json -short -tags extra ./... > "$SLOPGATE_OUT/go.jsonl"');
    expect(s.command).toBe('go test -race -v -short -tags extra ./...');
    // The tagged test only exists with `-tags extra`.
    expect(s.regressions).toEqual(['go:example.com/svc/util.TestDoubleExtra']);
  }, 240_000);
});
