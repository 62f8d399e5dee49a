import { afterAll, describe, expect, it } from 'vitest';
import { prRepo, TestRepo } from '../helpers/git-repo.js';
import { MemoryBaselineCache } from '../../src/testgate/baseline-cache.js';
import { gateTests, sandboxCacheDir, testsSection } from './fixtures.js';

const cache = sandboxCacheDir();
afterAll(() => cache.remove());

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

const GO = { 'go.mod': 'module example.com/svc\n\ngo 1.19\n', 'api/greet.go': HANDLER, 'api/greet_test.go': HANDLER_TEST, 'util/util.go': 'package util\n\nfunc Double(x int) int { return x * 2 }\n' };

needs('go')('G8 on Go repositories', () => {
  it('a handler whose body changed fails its test: test-regression at `func TestGreet`', async () => {
    const repo = prRepo(GO, { 'api/greet.go': HANDLER.replace('"hello, %s", name', '"Hello %s!", name') });
    const report = await gateTests(repo, { cacheDir: cache.dir, tests: { reruns: 1 } });
    const f = report.findings.filter((x) => x.category === 'test-regression');
    expect(f.map((x) => [x.path, x.line])).toEqual([['api/greet_test.go', 9]]);
    expect(f[0]!.message).toContain('example.com/svc/api.TestGreet');
    expect(testsSection(report)).toMatchObject({ runner: 'go', regressions: ['go:example.com/svc/api.TestGreet'] });
  });

  it('a package that no longer compiles is build-broken for that package, and its tests are not "removed"', async () => {
    const repo = prRepo(GO, { 'api/greet.go': HANDLER.replace('fmt.Fprintf(w, "hello, %s", name)', 'fmt.Fprintf(w, "hello, %s", nam)') });
    const report = await gateTests(repo, { cacheDir: cache.dir });
    expect(report.findings.map((f) => f.category)).toEqual(['build-broken']);
    expect(report.findings[0]).toMatchObject({ path: 'api', severity: 'fail' });
    expect(report.findings[0]!.message).toMatch(/Go package `example.com\/svc\/api` no longer builds.*undefined: nam/);
  });
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
  repo.write({ 'Cargo.toml': '[package]\nname = "shapes"\nversion = "0.1.0"\nedition = "2021"\n', 'src/lib.rs': LIB, 'tests/api.rs': 'use shapes::triangle;\n\n#[test]\nfn triangle_of_one() {\n    assert_eq!(triangle(1), 1);\n}\n' }).commit('base');
  const branch = (name: string, files: Record<string, string>) => {
    repo.git('checkout', '-q', '-B', name, 'main');
    repo.write(files).commit(name);
  };
  branch('off-by-one', { 'src/lib.rs': LIB.replace('(1..=n).sum()', '(1..n).sum()') });
  branch('broken', { 'tests/api.rs': 'use shapes::triangle;\n\n#[test]\nfn triangle_of_one() {\n    let n: u32 = "one";\n    assert_eq!(triangle(n), 1);\n}\n' });
  const shared = new MemoryBaselineCache();

  it('an off-by-one in a function is a test regression in both the unit and the integration target', async () => {
    const report = await gateTests(repo, { cacheDir: cache.dir, cache: shared, head: 'off-by-one', tests: { reruns: 0 } });
    const s = testsSection(report);
    expect(s.runner).toBe('cargo');
    expect(s.regressions.sort()).toEqual(['rust:src/lib.rs::tests::triangle_of_four', 'rust:tests/api.rs::triangle_of_one']);
    const unit = report.findings.find((f) => f.message.includes('triangle_of_four'))!;
    expect(unit).toMatchObject({ category: 'test-regression', path: 'src/lib.rs', line: 16 });
  });

  it('an integration test that no longer compiles is build-broken for that target only', async () => {
    const report = await gateTests(repo, { cacheDir: cache.dir, cache: shared, head: 'broken', tests: { reruns: 0 } });
    expect(testsSection(report).baseline!.cached).toBe(true);
    expect(report.findings.map((f) => [f.category, f.path])).toEqual([['build-broken', 'tests/api.rs']]);
    expect(report.findings[0]!.message).toMatch(/Rust target `tests\/api.rs` no longer compiles.*mismatched types/);
    // the lib's own tests still ran at head
    expect(testsSection(report).candidate!.total).toBeGreaterThanOrEqual(2);
  });
});
