import { configSchema, type SlopgateConfigInput } from '../../src/core/config-schema.js';
import { runGate } from '../../src/gate/run-gate.js';
import type { Report } from '../../src/core/report.js';
import { GUARDS } from '../../src/guards/index.js';
import type { JsonModel } from '../../src/llm/port.js';
import { refine, type RefineResult } from '../../src/refiner/refine.js';
import type { Recipe } from '../../src/refiner/types.js';
import type { GuardServices } from '../../src/core/guard.js';
import { evidenceViolations } from '../helpers/evidence.js';
import type { TestRepo } from '../helpers/git-repo.js';

export const DB_PY = `import sqlite3


def connect(path=":memory:"):
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    conn.execute("CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    return conn


def add_user(conn, name):
    conn.execute("INSERT INTO users (name) VALUES (?)", (name,))
    return conn.execute("SELECT id, name FROM users WHERE name = ?", (name,)).fetchone()


def format_row(row):
    return f"{row['id']}: {row['name']}"


def count_users(conn):
    return conn.execute("SELECT count(*) FROM users").fetchone()[0]
`;

export interface RefineRun {
  report: Report;
  result: RefineResult;
}

export interface RefineFixtureOptions {
  model?: JsonModel;
  recipes?: Recipe[];
  config?: SlopgateConfigInput;
  services?: GuardServices;
  modelAttempts?: number;
}

/** Gates main → pr of `repo` with every guard, then refines that report (the real pipeline both times). */
export function gateAndRefine(repo: TestRepo, opts: RefineFixtureOptions = {}): Promise<RefineRun> {
  return refineReport(repo, (r) => r, opts);
}

/** Like {@link gateAndRefine}, with the gated report passed through `edit` first (a finding the pipeline would not raise). */
export async function refineReport(repo: TestRepo, edit: (report: Report) => Report, opts: RefineFixtureOptions = {}): Promise<RefineRun> {
  const config = configSchema.parse({ tests: { enabled: false }, ...opts.config });
  const services: GuardServices = { ...opts.services };
  const gated = await runGate({ repoDir: repo.dir, base: 'main', head: 'pr', config, guards: GUARDS, services });
  const bad = evidenceViolations(gated.findings, GUARDS);
  if (bad.length) throw new Error(`evidence its guard's schema rejects:\n${bad.join('\n')}`);
  const report = edit(gated);
  const result = await refine({
    repoDir: repo.dir,
    base: 'main',
    head: 'pr',
    report,
    config,
    guards: GUARDS,
    recipes: opts.recipes ?? [],
    services,
    ...(opts.model ? { model: opts.model } : {}),
    ...(opts.modelAttempts ? { modelAttempts: opts.modelAttempts } : {}),
  });
  return { report, result };
}
