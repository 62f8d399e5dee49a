import { ciUnits, CI_FILES, readCiSites } from '../../repo/ci/ci-units.js';
import type { Pins } from '../../repo/ci/job-pins.js';
import type { CheckTool } from './command-checks.js';
import { ESLINT_CONFIGS, eslintRunsPrettier, GOLANGCI_CONFIGS, golangciFormatters } from './linter-formatters.js';
import { MYPY_CONFIG_FILES, mypyConfigOf, readMypyCommand } from './mypy-options.js';
import { checksOfSite } from './site-checks.js';

export type { Pins, ToolchainPin } from '../../repo/ci/job-pins.js';
export { jobPins } from '../../repo/ci/job-pins.js';
export { isWorkflowPath } from '../../repo/ci/workflow-sites.js';
export { checksOfCommand, type CheckTool } from './command-checks.js';

/**
 * Which format, lint and type checks a repository enforces, read from its base tree: GitHub Actions
 * workflows (`run:` lines and a few well-known actions), `.pre-commit-config.yaml`, package.json
 * scripts, the Makefile and tox.ini. Pure: it reads texts and runs nothing. Where commands are
 * written is read by the shared CI reader (src/repo/ci/); what here makes one a check is
 * command-checks.ts (commands, actions) and site-checks.ts (scripts, hooks).
 *
 * Every place a command can live is a *unit* (`workflow`, `make:lint`, `npm:lint`, `tox:lint`,
 * `pre-commit`). A unit's lines may call other units (`make lint`, `npm run lint`, `tox -e lint`,
 * `pre-commit run`); a check is "in CI" when its unit is reached from a workflow (or pre-commit runs
 * as pre-commit.ci, which a top-level `ci:` key in its config declares).
 */

export interface DiscoveredCheck {
  tool: CheckTool;
  /** The file it was found in (`.github/workflows/ci.yml`, `Makefile`, …). */
  source: string;
  /** The command line (or hook id) as written there. */
  line: string;
  /** The form fails on a finding (`gofmt -l`, `--check`, a pre-commit hook), not only rewrites files. */
  enforced: boolean;
  /** Its unit is run by the repository's CI. */
  inCi: boolean;
  /**
   * The paths or globs the command names (`prettier --check src`, `eslint 'lib/**'`), relative to
   * the repository root; absent when it checks everything (`.`, nothing named) or cannot be read.
   * For mypy without paths on its command line, the `files` of its configuration.
   */
  paths?: string[];
  /**
   * mypy and clippy: the words after the tool (`mypy --strict src` → `--strict src`; `cargo clippy
   * --all-targets -- -D warnings` → the words after `clippy`), a hook's `args` or an action's `args`.
   * clippy's `enforced` says whether warnings fail the run (`-D warnings` there or in `RUSTFLAGS`).
   */
  args?: string[];
  /**
   * mypy: the `exclude` patterns of its command line and configuration (Python regular expressions);
   * a formatter a linter runs: the files the linter leaves out (golangci-lint's `tests: false`).
   */
  exclude?: string[];
  /** mypy: the configuration file it reads (`pyproject.toml`, `mypy.ini`, …), when there is one. */
  config?: string;
  /**
   * Why CI runs it without a failure failing the pull request's checks (`continue-on-error: true`,
   * a command ending in `|| true`, a job that does not run on pull requests), naming the step read.
   */
  lenient?: string;
  /** The Go and Rust releases the check's workflow job installs (see tool-versions.ts). */
  pins?: Pins;
}

/** The files discovery reads from the base tree (besides `.github/workflows/*.yml`). */
export const DISCOVERY_FILES = [...MYPY_CONFIG_FILES, ...CI_FILES, ...GOLANGCI_CONFIGS, ...ESLINT_CONFIGS];

/**
 * Every check the texts configure, one per tool: the first one CI runs in a form that fails, else
 * the first one CI runs, else the first one found. `files` maps base paths to their text.
 */
export function discoverChecks(files: ReadonlyMap<string, string>, baseBranch?: string): Map<CheckTool, DiscoveredCheck> {
  const { sites, preCommitService } = readCiSites(files, baseBranch);
  const ci = ciUnits(sites, preCommitService);
  const golangci = golangciFormatters(files);
  const eslintPrettier = eslintRunsPrettier(files);
  const all: DiscoveredCheck[] = sites.flatMap((s) =>
    checksOfSite(s).flatMap((found) => {
      const { when, ...c } = found;
      let line = s.line;
      if (when === 'golangci-gofmt') {
        if (!golangci) return [];
        line = `${s.line} (${golangci.note})`;
        if (!golangci.tests) c.exclude = ['_test\\.go$'];
      }
      if (when === 'eslint-prettier') {
        if (!eslintPrettier) return [];
        line = `${s.line} (${eslintPrettier})`;
      }
      // eslint's plugin judges only what eslint lints
      if (when === 'eslint-prettier') c.exclude = ['\\.(?:css|scss|less|json|jsonc|json5|md|mdx|ya?ml|html|graphql|gql)$'];
      const inCi = ci.has(s.unit);
      const lenient = inCi ? (s.lenient ?? ci.get(s.unit)) : undefined;
      return [{ ...c, source: s.source, line, inCi, ...(lenient ? { lenient } : {}), ...(s.pins ? { pins: s.pins } : {}) }];
    }),
  );
  // at equal standing, the tool's own command beats a formatter a linter runs (it judges every file of its kind)
  const derived = (c: DiscoveredCheck) => (c.tool === 'prettier' && c.line.includes('(eslint-plugin-prettier in ') ? 0.5 : 0);
  const rank = (c: DiscoveredCheck) => (c.inCi && c.enforced && !c.lenient ? 0 : c.inCi ? 1 : c.enforced ? 2 : 3) + derived(c);
  const best = new Map<CheckTool, DiscoveredCheck>();
  for (const c of all) {
    const prev = best.get(c.tool);
    if (!prev || rank(c) < rank(prev)) best.set(c.tool, c);
  }
  const mypy = best.get('mypy');
  if (mypy) best.set('mypy', withMypyConfig(mypy, files));
  return best;
}

/** A mypy check with what its configuration says: `files` when the command names no paths, and `exclude`. */
function withMypyConfig(check: DiscoveredCheck, files: ReadonlyMap<string, string>): DiscoveredCheck {
  const command = readMypyCommand(check.args ?? []);
  const config = mypyConfigOf(files, command.configFile);
  const exclude = [...command.exclude, ...(config?.exclude ?? [])];
  const paths = check.paths ?? config?.files?.map((p) => p.replace(/^\.\//, '').replace(/\/+$/, '')).filter((p) => p && p !== '.');
  return {
    ...check,
    ...(paths?.length ? { paths } : {}),
    ...(exclude.length ? { exclude } : {}),
    ...(config ? { config: config.path } : {}),
  };
}
