import { describe, expect, it } from 'vitest';
import { g4 } from '../../src/guards/g4-imports/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

/** A dependency removed from package.json while files of the same package still import it (solstatus#81). */

const pkg = (deps: Record<string, string>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'app', version: '1.0.0', ...extra, dependencies: deps }, null, 2) + '\n';

const ROUTE = (n: number) =>
  `import { NextResponse } from "next/server";\n\nexport function GET() {\n  return NextResponse.json({ n: ${n} });\n}\n`;

async function removed(base: Record<string, FileContent>, change: Record<string, FileContent>) {
  const report = await gate(prRepo(base, change), [g4]);
  return { report, findings: findingsOf(report, 'G4').filter((f) => f.evidence?.removedDependency === true) };
}

describe('G4 removed dependency still imported', () => {
  it('fails when package.json drops `next` while unchanged files import next/server, naming a few and the count', async () => {
    const routes = Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`src/app/api/r${n}/route.ts`, ROUTE(n)]));
    const { report, findings } = await removed(
      { 'package.json': pkg({ next: '^14.0.0', react: '^18.2.0' }), ...routes },
      { 'package.json': pkg({ react: '^18.2.0', rwsdk: '^0.1.0' }) },
    );
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f).toMatchObject({ severity: 'fail', path: 'package.json', category: 'ungrounded-import' });
    expect(f.message).toContain("removes the dependency 'next', but 5 files of this package still import it");
    expect(f.message).toContain('`src/app/api/r1/route.ts`');
    expect(f.message).toContain('and 2 more');
    expect(f.evidence).toMatchObject({ importerCount: 5 });
    expect(report.decision.outcome).toBe('REFINE');
  });

  it('negatives: imports only in files the PR deletes, a dependency moved to devDependencies, a Node built-in name', async () => {
    const onlyDeleted = await removed(
      { 'package.json': pkg({ next: '^14.0.0' }), 'src/route.ts': ROUTE(1) },
      { 'package.json': pkg({}), 'src/route.ts': null },
    );
    expect(onlyDeleted.findings).toEqual([]);
    const moved = await removed(
      { 'package.json': pkg({ next: '^14.0.0' }), 'src/route.ts': ROUTE(1) },
      { 'package.json': pkg({}, { devDependencies: { next: '^14.0.0' } }) },
    );
    expect(moved.findings).toEqual([]);
    const builtin = await removed(
      {
        'package.json': pkg({ events: '^3.3.0' }),
        'src/bus.ts': 'import { EventEmitter } from "events";\nexport const bus = new EventEmitter();\n',
      },
      { 'package.json': pkg({}) },
    );
    expect(builtin.findings).toEqual([]);
  });

  it('workspace: a member dropping what the root declares or a sibling package is no finding; another package’s imports do not count', async () => {
    const base = {
      'package.json': JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'], dependencies: { zod: '^3.0.0' } }) + '\n',
      'packages/api/package.json': pkg({ zod: '^3.0.0', '@acme/ui': '*', next: '^14.0.0' }, { name: '@acme/api' }),
      'packages/api/src/a.ts':
        'import { z } from "zod";\nimport { Button } from "@acme/ui";\nexport const s = z.string();\nexport const B = Button;\n',
      'packages/ui/package.json': pkg({ next: '^14.0.0' }, { name: '@acme/ui' }),
      'packages/ui/src/index.ts': ROUTE(1),
    };
    const { findings } = await removed(base, { 'packages/api/package.json': pkg({}, { name: '@acme/api' }) });
    expect(findings).toEqual([]);
  });

  it('a sibling that still declares it under npm hoisting makes it a risk, not a fail', async () => {
    const base = {
      'package.json': JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'] }) + '\n',
      'packages/api/package.json': pkg({ next: '^14.0.0' }, { name: '@acme/api' }),
      'packages/api/src/route.ts': ROUTE(1),
      'packages/web/package.json': pkg({ next: '^14.0.0' }, { name: '@acme/web' }),
    };
    const { findings } = await removed(base, { 'packages/api/package.json': pkg({}, { name: '@acme/api' }) });
    expect(findings.map((f) => f.severity)).toEqual(['risk']);
    expect(findings[0]!.message).toContain('hoists `packages/web/package.json`');
  });
});
