import { guardIdsText, refinerGuardIds } from '../core/guard-ids.js';
import { VERSION } from '../core/version.js';

/** Help text of `slopgate --help` and of every subcommand's `--help`. */

const CHECK = `Usage: slopgate check [options]

Gates the change from the merge-base of --base with --head, runs every guard and prints one decision.
The config is the repository's committed .github/slopgate.yml (or .yaml, .toml) as it is at --base,
the way the App reads it from the default branch; without one, the embedded defaults. The report
names the file it used.

Options:
  --repo DIR            the repository (default: the current directory)
  --base REF            base of the change (default: the default branch)
  --head REF            tip of the change (default: HEAD)
  --working-tree        gate the working tree as it is (uncommitted and untracked files included)
                        against --base, as a pull request of it would be; without it, uncommitted
                        changes are left out with a warning that counts them
  -f, --format FORMAT   text | json | markdown | sarif (default: text)
  -c, --config FILE     use this config file (YAML or TOML) instead of the committed one
  --only IDS            run only these guards, e.g. G1,G2
  --skip IDS            do not run these guards, e.g. G11,psi
  --strict              risk findings block too
  --no-tests            skip the test-regression gate (G8)
  --qa                  run the Q&A self-consistency phase (needs SLOPGATE_LLM_* or SLOPGATE_QA_*; docs/refiner-and-qa.md)
  --fail-level LEVEL    none | nit | risk | fail (default: fail) — see below
  -o, --output FILE     write the report to FILE instead of stdout (the folder must exist)
  --trace FILE          write the structured trace (JSON lines) to FILE (the folder must exist)
  --db DIR|postgres://… keep runs in a database (G9 history, cached test baselines)
  -q, --quiet           no progress on stderr (by default: a live line on a terminal naming the
                        stage running and its time; elsewhere, as in CI logs, a line per stage and
                        one every 30 s while a stage runs)
  -h, --help            this help

Exit code: 0 nothing reaches the fail level, 1 it does, 2 usage, config or git errors,
3 slopgate could not run: a check it must run could not run here (the test sandbox cannot start:
install bubblewrap or use --no-tests) or it crashed.
Fail levels: fail (default) exits 1 when the decision blocks or a finding is 'fail'; risk also on any
'risk' finding; nit on any finding at all; none never exits 1 for findings (report only).
`;

const REFINE = `Usage: slopgate refine [options]

Gates the change like \`check\`, then tries to fix what it found: the known fixes (recipes) first, then,
when a model is configured, full-file patches of the flagged files. Every candidate runs through the
refiner phase of the gate (${guardIdsText(refinerGuardIds())}) and is kept only when the gate
strictly improves (fewer blocking findings, none new). Prints the proposed patch as a unified diff with
each guard's verdict per attempt. Nothing in your checkout changes unless --apply.

Options:
  --repo DIR            the repository (default: the current directory)
  --base REF            base of the change (default: the default branch)
  --head REF            tip of the change (default: HEAD)
  --apply               commit the kept patch on the current branch (needs a clean tree and HEAD = --head)
  -f, --format FORMAT   text | json (default: text)
  -c, --config FILE     use this config file (YAML or TOML) instead of the committed one at --base
  --no-tests            skip the test-regression gate (G8) for the gate and the candidates
  --db DIR|postgres://… record every attempt (G9 counts repeatedly reverted paths as history)
  -h, --help            this help

Model: SLOPGATE_LLM_BASE_URL, SLOPGATE_LLM_MODEL and SLOPGATE_LLM_API_KEY (environment only). Without
them only the recipes run, and the output says so; half of them (a base URL without a model) is a
configuration error (exit 2) that names the missing variable.

Exit code: 0 a patch was kept (and applied with --apply) or nothing blocking was found; 1 blocking
findings remain and no candidate passed; 2 usage, config or git errors, a dirty tree or HEAD not at
--head with --apply;
3 slopgate could not run: a check it must run could not run here (the test sandbox cannot start) or it
crashed.
`;

const INIT = `Usage: slopgate init [--repo DIR] [--force]

Writes .github/slopgate.yml with every setting at its default, each with a comment saying what it does,
and next to it .github/slopgate.schema.json (what \`slopgate schema\` prints), which the config's first
line points editors at so they complete and check the file (YAML language server). An existing config
is kept unless --force; the schema is rewritten with the config.

Options:
  --repo DIR   the repository (default: the current directory)
  --force      overwrite an existing .github/slopgate.yml (and its schema)
  -h, --help   this help
`;

const DEMO = `Usage: slopgate demo [--format text|json|markdown|sarif] [--keep]

Builds a small repository whose pull request reproduces real LLM slop and gates it.

Options:
  -f, --format FORMAT   report format (default: text)
  --keep                keep the demo repository and print where it is
  -h, --help            this help
`;

const SCHEMA = `Usage: slopgate schema [--format json|markdown]

Prints the JSON Schema of .github/slopgate.yml (and .github/slopgate.toml), or with --format markdown
the reference table of every key (docs/configuration-reference.md is that output).
`;

const WORKER = `Usage: slopgate worker [--concurrency N]

Takes gate jobs from the shared PostgreSQL queue until stopped. Needs DATABASE_URL, APP_ID and
PRIVATE_KEY or PRIVATE_KEY_PATH, the same as the App server.

Options:
  --concurrency N   gate jobs run at once (default: SLOPGATE_CONCURRENCY or 2)
  -h, --help        this help
`;

const DASHBOARD = `Usage: slopgate dashboard --db DIR|postgres://… [--port N] [--host ADDR]

Serves the read-only dashboard of a store (the runs \`slopgate check --db\` kept, or the App's
PostgreSQL database) at http://ADDR:PORT/dashboard until stopped, and /metrics beside it. Sign in
with the operator token: SLOPGATE_DASHBOARD_TOKEN, or one made for this process and printed at start.
An embedded store (a folder) is locked while the dashboard runs.

Options:
  --db DIR|postgres://…   the store to show (required)
  --port N                the port (default: 3080; 0 picks a free one)
  --host ADDR             the address to listen on (default: 127.0.0.1)
  -h, --help              this help
`;

export const COMMAND_HELP: Record<string, string> = {
  check: CHECK,
  refine: REFINE,
  init: INIT,
  demo: DEMO,
  schema: SCHEMA,
  worker: WORKER,
  dashboard: DASHBOARD,
};

export const USAGE = `slopgate ${VERSION} — gate a change against the ways LLM-written patches go wrong

Usage:
  slopgate check  [--base REF] [--head REF] [--format …] [--fail-level …] [options]
  slopgate refine [--base REF] [--head REF] [--apply] [--format text|json]
  slopgate init   [--repo DIR] [--force]
  slopgate demo   [--format …] [--keep]
  slopgate schema
  slopgate worker [--concurrency N]
  slopgate dashboard --db DIR [--port N] [--host ADDR]
  slopgate --version | --help | <command> --help

check   gates the change from the merge-base of --base with --head and prints one decision
refine  proposes a patch for the findings (recipes, then a model), each candidate gated again
init    writes a commented .github/slopgate.yml with every setting at its default, and its schema
demo    builds a small repository whose PR reproduces real slop and gates it
schema  prints the JSON Schema of .github/slopgate.yml
worker  runs gate jobs from the shared PostgreSQL queue (the App's worker tier)
dashboard  serves the read-only dashboard (runs, PRs needing a person, rule quality, flaky tests) of a store

Run 'slopgate <command> --help' for a command's options.
`;
