import { describe, expect, it } from 'vitest';
import { g4 } from '../../src/guards/g4-imports/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

async function importFindings(base: Record<string, FileContent>, head: Record<string, FileContent>) {
  const report = await gate(prRepo(base, head), [g4]);
  return findingsOf(report, 'G4').filter((f) => f.category === 'ungrounded-import');
}

const PYPROJECT = '[project]\nname = "callers"\ndependencies = ["requests"]\n';

describe('G4 missing-symbol: names imported from the repository’s own modules exist there', () => {
  it('fails `from callers.api_routes import api_routes` when api_routes.py defines no such name (real LLM shape)', async () => {
    const found = await importFindings(
      {
        'pyproject.toml': PYPROJECT,
        'callers/__init__.py': '',
        'callers/api_routes.py': 'def register(app):\n    return app\n',
        'callers/app.py': 'import os\n',
      },
      {
        'callers/app.py':
          'import os\nfrom callers.api_routes import api_routes, register\n\n\ndef make():\n    return register(api_routes)\n',
      },
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      severity: 'fail',
      line: 2,
      evidence: { kind: 'missing-symbol', name: 'api_routes', target: 'callers/api_routes.py' },
    });
    expect(found[0]!.message).toContain('ImportError');
  });

  it('passes names the module defines, imports, assigns, lists under a conditional, re-exports, or serves dynamically; and submodules', async () => {
    const found = await importFindings(
      {
        'pyproject.toml': PYPROJECT,
        'pkg/__init__.py': 'from .core import Engine\n\n__version__ = "1"\n',
        'pkg/core.py':
          'import sys\nfrom os import path as ospath\n\nclass Engine:\n    pass\n\nif sys.version_info >= (3, 11):\n    FAST = True\nelse:\n    FAST = False\n',
        'pkg/lazy.py': 'def __getattr__(name):\n    return name\n',
        'pkg/star.py': 'from pkg.core import *\n',
        'pkg/sub/__init__.py': '',
        'pkg/sub/tool.py': 'X = 1\n',
        'pkg/user.py': 'import os\n',
      },
      {
        'pkg/user.py': [
          'import os',
          'from pkg import Engine, __version__, core',
          'from pkg.core import Engine as E, FAST, ospath, sys',
          'from .lazy import anything',
          'from .star import whatever',
          'from pkg.sub import tool',
          'from typing import Protocol',
          '',
        ].join('\n'),
      },
    );
    expect(found).toEqual([]);
  });

  it('does not judge a stdlib-named module of a package (`pkg/typing.py` is not `typing`) nor optional imports', async () => {
    const found = await importFindings(
      { 'pyproject.toml': PYPROJECT, 'pkg/__init__.py': '', 'pkg/typing.py': 'X = 1\n', 'pkg/a.py': 'import os\n' },
      { 'pkg/a.py': 'import os\ntry:\n    from pkg.typing import Missing\nexcept ImportError:\n    Missing = None\n' },
    );
    expect(found).toEqual([]);
  });

  it('fails a TS relative named import the target does not export; passes exported, re-exported, type and export * targets', async () => {
    const found = await importFindings(
      {
        'package.json': '{"name":"web","version":"1.0.0"}\n',
        'src/util.ts':
          'export function slug(s: string): string {\n  return s;\n}\nexport type Id = string;\nconst secret = 1;\nexport { secret as visible };\n',
        'src/all.ts': "export * from './util';\n",
        'src/main.ts': 'export const x = 1;\n',
      },
      {
        'src/main.ts': [
          "import { slug, type Id, visible } from './util';",
          "import { slugify } from './util.js';",
          "import { anything } from './all';",
          "export { slug as s } from './util';",
          'export const x = slug(String(visible)) as Id;',
          '',
        ].join('\n'),
      },
    );
    expect(found.map((f) => [f.evidence?.name, f.line, f.evidence?.target])).toEqual([['slugify', 2, 'src/util.ts']]);
  });

  it('only judges imports the PR adds: a stale import already at base is not this PR’s doing', async () => {
    const found = await importFindings(
      { 'pyproject.toml': PYPROJECT, 'app/__init__.py': '', 'app/a.py': 'X = 1\n', 'app/b.py': 'from app.a import Gone\n' },
      { 'app/b.py': 'from app.a import Gone\n\nY = 2\n' },
    );
    expect(found).toEqual([]);
  });
});

describe('G4 ungrounded-import: packages the repository already imports', () => {
  it('passes a TYPE_CHECKING import of a package another module imports at base; still fails an unknown one', async () => {
    const found = await importFindings(
      { 'pyproject.toml': PYPROJECT, 'app/__init__.py': '', 'app/db.py': 'import sqlalchemy\n', 'app/models.py': 'import os\n' },
      {
        'app/models.py': [
          'import os',
          'import typing',
          'from typing import TYPE_CHECKING',
          '',
          'if TYPE_CHECKING:',
          '    from sqlalchemy.orm import Session',
          '',
          'if typing.TYPE_CHECKING:',
          '    from fancyorm import Model',
          '',
        ].join('\n'),
      },
    );
    expect(found.map((f) => f.evidence?.package)).toEqual(['fancyorm']);
  });

  it('passes a TS `import type` of a package imported elsewhere at base', async () => {
    const found = await importFindings(
      {
        'package.json': '{"name":"web","version":"1.0.0","dependencies":{}}\n',
        'src/a.ts': "import { z } from 'zod';\nexport const s = z.string();\n",
        'src/b.ts': 'export const b = 1;\n',
      },
      {
        'src/b.ts':
          "import type { ZodType } from 'zod';\nimport type { Other } from 'not-there';\nexport const b = 1;\nexport type T = ZodType | Other;\n",
      },
    );
    expect(found.map((f) => f.evidence?.package)).toEqual(['not-there']);
  });
});
