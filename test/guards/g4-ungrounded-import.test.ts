import { describe, expect, it } from 'vitest';
import { g4 } from '../../src/guards/g4-imports/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

const pkg = (deps: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'app', version: '1.0.0', ...extra, dependencies: deps }, null, 2) + '\n';

async function importFindings(base: Record<string, FileContent>, ...commits: Record<string, FileContent>[]) {
  return importFindingsWith({}, base, ...commits);
}

async function importFindingsWith(config: object, base: Record<string, FileContent>, ...commits: Record<string, FileContent>[]) {
  const report = await gate(prRepo(base, ...commits), [g4], { config });
  return findingsOf(report, 'G4').filter((f) => f.category === 'ungrounded-import');
}

const SQLITE_DB = 'import sqlite3\n\n\ndef connect(path):\n    return sqlite3.connect(path)\n';
const PG_DB = 'import psycopg2\n\n\ndef connect(path):\n    return psycopg2.connect(path)\n';

describe('G4 ungrounded-import', () => {
  it('fails a Python module switched from sqlite3 to psycopg2 that nobody declared', async () => {
    const findings = await importFindings({ 'requirements.txt': 'flask>=3\n', 'app/db.py': SQLITE_DB }, { 'app/db.py': PG_DB });
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f.severity).toBe('fail');
    expect(f.path).toBe('app/db.py');
    expect(f.line).toBe(1);
    expect(f.message).toContain('`import psycopg2`');
    expect(f.message).toContain("'psycopg2'");
    expect(f.remediation).toContain('requirements.txt');
  });

  it('passes the same switch when the PR declares psycopg2-binary in requirements.txt', async () => {
    const findings = await importFindings(
      { 'requirements.txt': 'flask>=3\n', 'app/db.py': SQLITE_DB },
      { 'app/db.py': PG_DB, 'requirements.txt': 'flask>=3\npsycopg2-binary==2.9.9\n' },
    );
    expect(findings).toEqual([]);
  });

  it('passes stdlib, relative, src-layout and already-present imports; flags only the new third-party one', async () => {
    const findings = await importFindings(
      {
        'pyproject.toml': '[project]\nname = "shop"\ndependencies = ["PyYAML>=6", "google-cloud-storage"]\n',
        'src/shop/__init__.py': '',
        'src/shop/models.py': 'X = 1\n',
        'src/shop/cli.py': 'import requests\n',
      },
      {
        'src/shop/cli.py': [
          'import requests',
          'import os, json',
          'from __future__ import annotations',
          'from . import models',
          'from .models import X',
          'from shop.models import X as Y',
          'import yaml',
          'from google.cloud import storage',
          'try:',
          '    import ujson',
          'except ImportError:',
          '    ujson = None',
          'import tomllib',
          'import httpx',
          '',
        ].join('\n'),
      },
    );
    expect(findings.map((f) => [f.evidence?.package, f.line])).toEqual([['httpx', 14]]);
  });

  it('skips Python files when the repository has no Python manifest at all', async () => {
    const findings = await importFindings({ 'scripts/tool.py': 'import os\n' }, { 'scripts/tool.py': 'import os\nimport numpy\n' });
    expect(findings).toEqual([]);
  });

  it('fails `import express` in JS when package.json does not declare it, passes when it does', async () => {
    const undeclared = await importFindings(
      { 'package.json': pkg({ lodash: '4' }), 'src/server.js': 'const _ = require("lodash");\n' },
      { 'src/server.js': 'const _ = require("lodash");\nimport express from "express";\n' },
    );
    expect(undeclared.map((f) => [f.evidence?.package, f.line, f.remediation.includes('package.json')])).toEqual([['express', 2, true]]);
    const declared = await importFindings(
      { 'package.json': pkg({ express: '4' }), 'src/server.js': '' },
      { 'src/server.js': 'import express from "express";\nimport { Router } from "express/lib/router";\n' },
    );
    expect(declared).toEqual([]);
  });

  it('grounds TS path aliases, baseUrl imports, node: builtins, #subpaths, @types and import type', async () => {
    const findings = await importFindings(
      {
        'package.json': pkg({}, { devDependencies: { '@types/lodash': '4' } }),
        'tsconfig.json':
          '{\n  // aliases\n  "compilerOptions": { "baseUrl": "src", "paths": { "@/*": ["src/*"], "~lib": ["lib/index.ts"] } },\n}\n',
        'src/utils/format.ts': 'export const f = 1;\n',
        'src/a.ts': 'export {};\n',
      },
      {
        'src/a.ts': [
          "import { f } from '@/utils/format';",
          "import lib from '~lib';",
          "import { f as g } from 'utils/format';",
          "import { readFile } from 'node:fs/promises';",
          "import path from 'path';",
          "import { test } from 'node:test';",
          "import conf from '#config';",
          "import type { Dictionary } from 'lodash';",
          "import type { Z } from 'zod';",
          "const lazy = () => import('chalk');",
          '',
        ].join('\n'),
      },
    );
    expect(findings.map((f) => [f.evidence?.package, f.line])).toEqual([
      ['zod', 9],
      ['chalk', 10],
    ]);
  });

  it('grounds workspace packages and scoped names by their package, not their subpath', async () => {
    const findings = await importFindings(
      {
        'package.json': pkg({}, { workspaces: ['packages/*'] }),
        'packages/ui/package.json': JSON.stringify({ name: '@acme/ui' }),
        'packages/web/package.json': JSON.stringify({ name: '@acme/web', dependencies: { '@tanstack/react-query': '5' } }),
        'packages/web/index.tsx': 'export {};\n',
      },
      {
        'packages/web/index.tsx':
          "import { Button } from '@acme/ui/button';\nimport { useQuery } from '@tanstack/react-query';\nimport x from '@acme/missing/x';\n",
      },
    );
    expect(findings.map((f) => [f.evidence?.package, f.line])).toEqual([['@acme/missing', 3]]);
    expect(findings[0]!.remediation).toContain('packages/web/package.json');
  });

  it('grounds Go std, module-local and declared subpackages; fails an undeclared github.com module', async () => {
    const findings = await importFindings(
      {
        'go.mod': 'module example.com/shop\n\ngo 1.22\n\nrequire github.com/spf13/cobra v1.8.0\n',
        'cmd/main.go': 'package main\n\nimport "fmt"\n',
      },
      {
        'cmd/main.go':
          'package main\n\nimport (\n\t"fmt"\n\t"net/http"\n\t"example.com/shop/internal/store"\n\t"github.com/spf13/cobra/doc"\n\t"github.com/x/y/z"\n)\n',
      },
    );
    expect(findings.map((f) => [f.evidence?.package, f.line])).toEqual([['github.com/x/y', 8]]);
    expect(findings[0]!.remediation).toContain('go.mod');
  });

  it('fails Rust `use serde` when Cargo.toml lacks it, passes crate-local, std, renamed and hyphenated crates', async () => {
    const cargo = '[package]\nname = "my-tool"\n\n[dependencies]\nserde-json = "1"\njson5 = { package = "json5-rs", version = "0.4" }\n';
    const findings = await importFindings(
      { 'Cargo.toml': cargo, 'src/main.rs': 'fn main() {}\n', 'src/config.rs': 'pub struct C;\n' },
      {
        'src/main.rs': [
          'mod config;',
          'mod inline { pub fn f() {} }',
          'use crate::config::C;',
          'use self::inline::f;',
          'use std::collections::HashMap;',
          'use serde_json::Value;',
          'use json5::from_str;',
          'use my_tool::run;',
          'use config::C as D;',
          'enum Mode { A }',
          'use Mode::*;',
          'use serde::{Serialize, Deserialize};',
          'extern crate rayon;',
          'fn main() {}',
          '',
        ].join('\n'),
      },
    );
    expect(findings.map((f) => [f.evidence?.package, f.line])).toEqual([
      ['serde', 12],
      ['rayon', 13],
    ]);
    expect(findings[0]!.remediation).toContain('Cargo.toml');
  });

  it('passes Rust `use serde` when the PR adds serde to Cargo.toml in the same change', async () => {
    const findings = await importFindings(
      { 'Cargo.toml': '[package]\nname = "t"\n\n[dependencies]\n', 'src/lib.rs': 'pub fn a() {}\n' },
      {
        'Cargo.toml': '[package]\nname = "t"\n\n[dependencies]\nserde = { version = "1", features = ["derive"] }\n',
        'src/lib.rs': 'use serde::Serialize;\npub fn a() {}\n',
      },
    );
    expect(findings).toEqual([]);
  });

  it('does not re-flag an undeclared import that was already in the file at base', async () => {
    const findings = await importFindings(
      { 'requirements.txt': 'flask\n', 'app.py': 'import numpy as np\n' },
      { 'app.py': 'import numpy as np\nfrom numpy.linalg import norm\n' },
    );
    expect(findings).toEqual([]);
  });

  it('grounds imports by Poetry, setup.cfg and -r included requirement names with different spellings', async () => {
    const findings = await importFindings(
      {
        'pyproject.toml': '[tool.poetry.dependencies]\npython = "^3.11"\nbeautifulsoup4 = "*"\npython-dateutil = "*"\n',
        'setup.cfg': '[options]\ninstall_requires =\n    Pillow\n',
        'requirements.txt': '-r requirements/base.txt\n',
        'requirements/base.txt': 'scikit-learn[alldeps]; python_version>"3.8"\n',
        'svc.py': '',
      },
      { 'svc.py': 'from bs4 import BeautifulSoup\nfrom dateutil import parser\nfrom PIL import Image\nimport sklearn\nimport pandas\n' },
    );
    expect(findings.map((f) => f.evidence?.package)).toEqual(['pandas']);
    expect(findings[0]!.remediation).toContain('pyproject.toml');
  });

  it('treats packages listed in imports.allow as declared (installed by tox or the image)', async () => {
    const findings = await importFindingsWith(
      { imports: { allow: ['Typing_Extensions'] } },
      { 'requirements.txt': 'flask\n', 'app.py': '' },
      { 'app.py': 'import typing_extensions\nimport attrs\n' },
    );
    expect(findings.map((f) => f.evidence?.package)).toEqual(['attrs']);
  });
});
