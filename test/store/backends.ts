import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Report } from '../../src/core/report.js';
import { makeFinding, type FindingInput } from '../../src/core/finding.js';
import { openDb } from '../../src/store/open-store.js';
import { Store } from '../../src/store/store.js';
import type { Db } from '../../src/store/db.js';

/** The real PostgreSQL server the suite also runs against (trust auth, database `test`). */
export const PG_URL = process.env.SLOPGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh schema name per test run, so parallel runs never share tables. */
export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * One database under test. `open()` returns another handle on the same database: a new connection
 * pool for PostgreSQL; for PGlite (one connection per process by design) a second Store on the
 * same instance.
 */
export interface Backend {
  name: 'pglite' | 'postgres';
  setup(): Promise<void>;
  open(): Promise<Store>;
  teardown(): Promise<void>;
}

export function pgliteBackend(): Backend {
  let db: Db | undefined;
  return {
    name: 'pglite',
    async setup() {
      db = await openDb({});
    },
    async open() {
      return new Store(db!);
    },
    async teardown() {
      await db?.close();
    },
  };
}

export function postgresBackend(): Backend {
  const schema = uniqueSchema();
  const dbs: Db[] = [];
  return {
    name: 'postgres',
    async setup() {
      // nothing to prepare: every open() makes its own schema
    },
    async open() {
      const db = await openDb({ url: PG_URL, schema, poolSize: 4 });
      dbs.push(db);
      return new Store(db);
    },
    async teardown() {
      await Promise.all(dbs.map((d) => d.close().catch(() => undefined)));
      await dropSchema(schema);
    },
  };
}

export const BACKENDS: (() => Backend)[] = [pgliteBackend, postgresBackend];

let counter = 0;

/** A finding as a test writes it: the remediation is filled in when absent. */
export type FindingSpec = Omit<FindingInput, 'remediation'> & { remediation?: string };

/** A minimal but complete report, as the pipeline would produce it. */
export function makeReport(
  opts: { repo?: string; headSha?: string; findings?: FindingSpec[]; outcome?: Report['decision']['outcome'] } = {},
): Report {
  const findings = (opts.findings ?? []).map((f) =>
    makeFinding({ ...f, remediation: f.remediation ?? `fix ${f.category} in ${f.path ?? 'the PR'}` }),
  );
  const outcome = opts.outcome ?? (findings.length ? 'REFINE' : 'PASS');
  counter++;
  return {
    version: 1,
    tool: { name: 'slopgate', version: '0.0.0-test' },
    repo: opts.repo ?? 'acme/app',
    base: { ref: 'main', sha: 'b'.repeat(40) },
    head: { ref: 'pr', sha: opts.headSha ?? counter.toString(16).padStart(40, 'c') },
    commits: [],
    files: [],
    guards: [],
    findings,
    sections: {},
    decision: {
      outcome,
      conclusion: outcome === 'PASS' ? 'success' : 'failure',
      reason: outcome === 'PASS' ? 'no findings' : 'fixable findings',
      next: outcome === 'PASS' ? 'none' : 'offer-refine',
      tier: 2,
      round: 1,
      maxRounds: 3,
      stuck: false,
      blocking: findings.filter((f) => f.severity === 'fail').length,
      advisory: findings.filter((f) => f.severity !== 'fail').length,
      buckets: {},
    },
    createdAt: new Date().toISOString(),
    durationMs: 5,
  };
}
