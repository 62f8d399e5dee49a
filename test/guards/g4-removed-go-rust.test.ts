import { describe, expect, it } from 'vitest';
import { g4 } from '../../src/guards/g4-imports/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

/** A module removed from go.mod, a crate removed from Cargo.toml, while files of that module/crate still import it. */

async function removed(base: Record<string, FileContent>, change: Record<string, FileContent>) {
  const report = await gate(prRepo(base, change), [g4]);
  return { report, findings: findingsOf(report, 'G4').filter((f) => f.evidence?.removedDependency === true) };
}

const gomod = (requires: string[], extra = '') =>
  `module example.com/svc\n\ngo 1.22\n\nrequire (\n${requires.map((r) => `\t${r}\n`).join('')})\n${extra}`;

const MAIN = `package main

import (
\t"fmt"

\t"github.com/alecthomas/kong"
\t"golang.org/x/sync/errgroup"
)

func main() {
\tvar g errgroup.Group
\tfmt.Println(&kong.Context{}, &g)
}
`;

describe('G4 removed Go module still imported', () => {
  it('fails when go.mod drops a required module whose packages main.go still imports', async () => {
    const { report, findings } = await removed(
      { 'go.mod': gomod(['github.com/alecthomas/kong v0.9.0', 'golang.org/x/sync v0.7.0']), 'main.go': MAIN },
      { 'go.mod': gomod(['golang.org/x/sync v0.7.0']) },
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'fail', path: 'go.mod' });
    expect(findings[0]!.message).toContain(
      "removes the dependency 'github.com/alecthomas/kong', but 1 file of this package still imports it (`main.go`)",
    );
    expect(findings[0]!.message).toContain('`go build` stops with "no required module provides package"');
    expect(findings[0]!.evidence).toMatchObject({ ecosystem: 'go', importers: ['main.go'] });
    expect(report.decision.outcome).toBe('REFINE');
  });

  it('a tools.go behind a build tag is a risk; a _test.go importer says go test', async () => {
    const tools = await removed(
      {
        'go.mod': gomod(['golang.org/x/tools v0.20.0']),
        'tools.go': '//go:build tools\n\npackage tools\n\nimport _ "golang.org/x/tools/cmd/stringer"\n',
      },
      { 'go.mod': gomod([]) },
    );
    expect(tools.findings.map((f) => f.severity)).toEqual(['risk']);
    const tests = await removed(
      {
        'go.mod': gomod(['github.com/stretchr/testify v1.9.0']),
        'svc_test.go':
          'package svc\n\nimport (\n\t"testing"\n\n\t"github.com/stretchr/testify/require"\n)\n\nfunc TestX(t *testing.T) { require.True(t, true) }\n',
      },
      { 'go.mod': gomod([]) },
    );
    expect(tests.findings.map((f) => f.severity)).toEqual(['fail']);
    expect(tests.findings[0]!.message).toContain('`go test` and `go vet` stop');
  });

  it('negatives: removed with its last import, replaced by a module that provides the path, a go.work member, another module’s files', async () => {
    const withLast = await removed(
      { 'go.mod': gomod(['github.com/alecthomas/kong v0.9.0', 'golang.org/x/sync v0.7.0']), 'main.go': MAIN },
      {
        'go.mod': gomod(['golang.org/x/sync v0.7.0']),
        'main.go': MAIN.replace('\t"github.com/alecthomas/kong"\n', '').replace('&kong.Context{}', '1'),
      },
    );
    expect(withLast.findings).toEqual([]);
    // The nested module x/sync/errgroup is gone, its parent x/sync provides the path now.
    const parent = await removed(
      { 'go.mod': gomod(['github.com/alecthomas/kong v0.9.0', 'golang.org/x/sync/errgroup v0.1.0']), 'main.go': MAIN },
      { 'go.mod': gomod(['github.com/alecthomas/kong v0.9.0', 'golang.org/x/sync v0.7.0']) },
    );
    expect(parent.findings).toEqual([]);
    const workspace = await removed(
      {
        'go.work': 'go 1.22\n\nuse (\n\t.\n\t./lib\n)\n',
        'go.mod': gomod(['example.com/lib v0.0.0']),
        'lib/go.mod': 'module example.com/lib\n\ngo 1.22\n',
        'lib/lib.go': 'package lib\n\nfunc X() int { return 1 }\n',
        'main.go': 'package main\n\nimport "example.com/lib"\n\nfunc main() { _ = lib.X() }\n',
      },
      { 'go.mod': gomod([]) },
    );
    expect(workspace.findings).toEqual([]);
    const other = await removed(
      {
        'go.mod': gomod(['github.com/alecthomas/kong v0.9.0']),
        'main.go': 'package main\n\nfunc main() {}\n',
        'tools/go.mod': 'module example.com/tools\n\ngo 1.22\n',
        'tools/main.go': MAIN,
      },
      { 'go.mod': gomod([]) },
    );
    expect(other.findings).toEqual([]);
  });
});

const cargo = (deps: string, extra = '') =>
  `[package]\nname = "svc"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n${deps}\n${extra}`;

const LIB = `use serde::Serialize;

#[derive(Serialize)]
pub struct Out {
    pub n: u32,
}

pub fn render(o: &Out) -> String {
    serde_json::to_string(o).unwrap()
}
`;

describe('G4 removed Rust crate still used', () => {
  it('fails for a removed crate named by `use` or by a path (hyphenated key, underscored in code), also when re-declared under a `package =` rename', async () => {
    const { findings } = await removed(
      { 'Cargo.toml': cargo('serde = { version = "1", features = ["derive"] }\nserde-json = "1"\n'), 'src/lib.rs': LIB },
      { 'Cargo.toml': cargo('json = { package = "serde_json", version = "1" }\n') },
    );
    expect(findings.map((f) => [f.evidence?.package, f.evidence?.importName ?? null, f.severity])).toEqual([
      ['serde', null, 'fail'],
      ['serde-json', 'serde_json', 'fail'],
    ]);
    expect(findings[1]!.message).toContain(
      "removes the dependency 'serde-json', but 1 file of this package still imports it as `serde_json` (`src/lib.rs`)",
    );
    expect(findings[1]!.message).toContain('no longer compiles');
  });

  it('dev-dependencies count for tests; build-dependencies only for build.rs; an optional dependency is a risk', async () => {
    const { findings } = await removed(
      {
        'Cargo.toml': cargo(
          'anyhow = "1"\nregex = { version = "1", optional = true }\n',
          '[dev-dependencies]\nproptest = "1"\n\n[build-dependencies]\ncc = "1"\n',
        ),
        'src/lib.rs': '#[cfg(feature = "regex")]\npub fn re() -> regex::Regex { regex::Regex::new("a").unwrap() }\n',
        'src/other.rs': 'pub fn g() { anyhow::bail!("x") }\n',
        'tests/props.rs': 'use proptest::prelude::*;\n\nproptest! { #[test] fn t(x in 0u8..) { prop_assert!(x >= 0) } }\n',
        'build.rs': 'fn main() { cc::Build::new().file("a.c").compile("a"); anyhow::Result::<()>::Ok(()).unwrap(); }\n',
      },
      { 'Cargo.toml': cargo('anyhow = "1"\n') },
    );
    const got = findings.map((f) => [f.evidence?.package, f.severity, f.evidence?.importers]);
    expect(got.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['cc', 'fail', ['build.rs']],
      ['proptest', 'fail', ['tests/props.rs']],
      ['regex', 'risk', ['src/lib.rs']],
    ]);
  });

  it('negatives: removed with its last use, a key kept under another table or spelling, the crate’s own name, another crate’s files', async () => {
    const withLast = await removed(
      { 'Cargo.toml': cargo('serde_json = "1"\n'), 'src/lib.rs': 'pub fn f() -> String { serde_json::json!({}).to_string() }\n' },
      { 'Cargo.toml': cargo(''), 'src/lib.rs': 'pub fn f() -> String { String::new() }\n' },
    );
    expect(withLast.findings).toEqual([]);
    const kept = await removed(
      {
        'Cargo.toml': cargo('serde_json = "1"\ntokio = "1"\n'),
        'src/main.rs': '#[tokio::main]\nasync fn main() { serde_json::json!({}); }\n',
      },
      { 'Cargo.toml': cargo('serde-json = "1"\n', '[target.\'cfg(unix)\'.dependencies]\ntokio = "1"\n') },
    );
    expect(kept.findings).toEqual([]);
    const workspace = await removed(
      {
        'Cargo.toml': '[workspace]\nmembers = ["a", "b"]\n\n[workspace.dependencies]\nlog = "0.4"\n',
        'a/Cargo.toml': cargo('log = { workspace = true }\n'),
        'a/src/lib.rs': 'mod log {\n    pub fn info() {}\n}\n\npub fn f() {\n    log::info()\n}\n',
        'b/Cargo.toml': cargo('log = { workspace = true }\n'),
        'b/src/lib.rs': 'pub fn g() { log::info!("x") }\n',
        'a/tests/own.rs': 'use svc::f;\n#[test]\nfn t() { f() }\n',
      },
      { 'a/Cargo.toml': cargo('') },
    );
    expect(workspace.findings).toEqual([]);
  });
});
