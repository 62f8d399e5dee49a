import { describe, expect, it } from 'vitest';
import { g4 } from '../../src/guards/g4-imports/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

const json = (o: unknown) => `${JSON.stringify(o, null, 2)}\n`;

async function imports(base: Record<string, FileContent>, head: Record<string, FileContent>, config: object = {}) {
  const report = await gate(prRepo(base, head), [g4], { config });
  return findingsOf(report, 'G4').filter((f) => f.category === 'ungrounded-import');
}

const brief = (found: { path?: string; line?: number; severity: string; evidence?: Record<string, unknown> }[]) =>
  found.map((f) => [f.path, f.line, f.severity, f.evidence?.package]);

describe('G4: MDX pages and JS/TS config files import like code', () => {
  const SITE = {
    'package.json': json({ name: 'docs', private: true, dependencies: { next: '15', react: '19' } }),
    'pages/index.mdx': '# Home\n',
  };

  it('an MDX page importing nextra/components in a site that does not use Nextra fails, at the page’s line', async () => {
    const page =
      "---\ntitle: Guide\n---\nimport { Callout } from 'nextra/components'\nimport Chart from '../components/chart'\n\n# Guide\n\n<Callout>Read this.</Callout>\n";
    const found = await imports(SITE, { 'pages/guide.mdx': page });
    expect(brief(found)).toEqual([['pages/guide.mdx', 4, 'fail', 'nextra']]);
    expect(found[0]!.message).toContain("import { Callout } from 'nextra/components'");
  });

  it('imports inside code fences and prose mentioning import are not imports; a declared package is grounded', async () => {
    const page = [
      '# Usage',
      '',
      '```js',
      "import { Callout } from 'nextra/components'",
      '```',
      '',
      'You can import anything you like.',
      '',
      "import { useState } from 'react'",
      '',
    ].join('\n');
    expect(await imports(SITE, { 'pages/usage.mdx': page })).toEqual([]);
  });

  it('a package another MDX page already imported at base is not new', async () => {
    const base = { ...SITE, 'pages/a.mdx': "import { Tabs } from 'nextra/components'\n\n# A\n" };
    expect(await imports(base, { 'pages/b.mdx': "import { Callout } from 'nextra/components'\n\n# B\n" })).toEqual([]);
  });

  it('config files are code: an undeclared Vite plugin or ESLint config package fails', async () => {
    const base = { 'package.json': json({ name: 'app', devDependencies: { vite: '6', eslint: '9' } }) };
    const found = await imports(base, {
      'vite.config.ts':
        "import { defineConfig } from 'vite';\nimport { VitePWA } from 'vite-plugin-pwa';\nexport default defineConfig({ plugins: [VitePWA()] });\n",
      'eslint.config.mjs': "import tseslint from 'typescript-eslint';\nexport default tseslint.config();\n",
    });
    expect(brief(found).sort()).toEqual([
      ['eslint.config.mjs', 1, 'fail', 'typescript-eslint'],
      ['vite.config.ts', 2, 'fail', 'vite-plugin-pwa'],
    ]);
  });
});

describe('G4: in a workspace, an import must be declared by the package that contains the file', () => {
  const NPM_WS = {
    'package.json': json({
      name: 'mono',
      private: true,
      workspaces: ['packages/*'],
      devDependencies: { vitest: '3', '@babel/core': '7', 'node-machine-id': '1' },
    }),
    'package-lock.json': '{}\n',
    'packages/cli/package.json': json({ name: '@acme/cli', version: '1.0.0', dependencies: { commander: '12' } }),
    'packages/cli/src/index.ts': "import { program } from 'commander';\n",
    'packages/app/package.json': json({ name: '@acme/app', private: true, dependencies: { react: '19' } }),
    'packages/app/src/main.tsx': "import React from 'react';\n",
    'packages/web/package.json': json({ name: '@acme/web', private: true, dependencies: { zod: '3' } }),
  };

  it('a published package importing what only the root declares fails (its users never get it)', async () => {
    const found = await imports(NPM_WS, {
      'packages/cli/src/index.ts':
        "import { program } from 'commander';\nimport { machineIdSync } from 'node-machine-id';\nimport { transform } from '@babel/core';\n",
    });
    expect(brief(found)).toEqual([
      ['packages/cli/src/index.ts', 2, 'fail', 'node-machine-id'],
      ['packages/cli/src/index.ts', 3, 'fail', '@babel/core'],
    ]);
    expect(found[0]!.message).toContain(
      '`packages/cli/package.json` (the package this file belongs to) does not declare it; only `package.json` does',
    );
    expect(found[0]!.message).toContain('published');
    expect(found[0]!.remediation).toContain('packages/cli/package.json');
  });

  it('a private package doing the same is a risk; its tests importing the root’s tooling are fine', async () => {
    const found = await imports(NPM_WS, {
      'packages/app/src/id.ts': "import { machineIdSync } from 'node-machine-id';\nexport const id = machineIdSync();\n",
      'packages/app/test/id.test.ts': "import { expect, it } from 'vitest';\nit('x', () => expect(1).toBe(1));\n",
      'packages/app/vite.config.ts': "import { defineConfig } from 'vitest/config';\nexport default defineConfig({});\n",
    });
    expect(brief(found)).toEqual([['packages/app/src/id.ts', 1, 'risk', 'node-machine-id']]);
    expect(found[0]!.message).toContain('building or deploying the package on its own breaks');
  });

  it('hoisted npm: a dependency only a sibling declares is a risk in a private package', async () => {
    const found = await imports(NPM_WS, { 'packages/app/src/schema.ts': "import { z } from 'zod';\nexport const s = z.string();\n" });
    expect(brief(found)).toEqual([['packages/app/src/schema.ts', 1, 'risk', 'zod']]);
    expect(found[0]!.message).toContain('`packages/web/package.json`');
  });

  it('pnpm: a dependency only a sibling declares does not resolve, even from a test; the root’s tooling does', async () => {
    const pnpm = {
      ...NPM_WS,
      'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n",
      'package-lock.json': null,
      'pnpm-lock.yaml': 'lockfileVersion: 9.0\n',
    };
    const found = await imports(pnpm, {
      'packages/app/test/schema.test.ts': "import { z } from 'zod';\nimport { it } from 'vitest';\n",
    });
    expect(brief(found)).toEqual([['packages/app/test/schema.test.ts', 1, 'fail', 'zod']]);
    expect(found[0]!.message).toContain('pnpm links each package’s own dependencies only');
    const hoisted = await imports(
      { ...pnpm, '.npmrc': 'node-linker=hoisted\n' },
      { 'packages/app/test/schema.test.ts': "import { z } from 'zod';\n" },
    );
    expect(brief(hoisted)).toEqual([['packages/app/test/schema.test.ts', 1, 'risk', 'zod']]);
  });

  it("Yarn Plug'n'Play refuses any undeclared import, the root's included", async () => {
    const pnp = { ...NPM_WS, 'package-lock.json': null, 'yarn.lock': '# yarn\n', '.yarnrc.yml': 'enableTelemetry: false\n' };
    const found = await imports(pnp, { 'packages/app/test/a.test.ts': "import { it } from 'vitest';\n" });
    expect(brief(found)).toEqual([['packages/app/test/a.test.ts', 1, 'fail', 'vitest']]);
  });

  it('not the PR’s doing: the package already imported it at base; imports.allow; workspace siblings; the root package itself', async () => {
    const base = { ...NPM_WS, 'packages/app/src/old.ts': "import { machineIdSync } from 'node-machine-id';\n" };
    expect(await imports(base, { 'packages/app/src/new.ts': "import { machineIdSync } from 'node-machine-id';\n" })).toEqual([]);
    expect(
      await imports(
        NPM_WS,
        { 'packages/cli/src/id.ts': "import { machineIdSync } from 'node-machine-id';\n" },
        { imports: { allow: ['node-machine-id'] } },
      ),
    ).toEqual([]);
    expect(
      await imports(NPM_WS, {
        'packages/app/src/cli.ts': "import '@acme/cli';\n",
        'scripts/release.ts': "import { transform } from '@babel/core';\n",
      }),
    ).toEqual([]);
  });
});
