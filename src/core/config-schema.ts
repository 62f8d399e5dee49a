import { z } from 'zod';
import { isCategory, ROUTE_TABLE } from '../core/categories.js';
import { canonicalGuardId, knownGuardIdsText } from './guard-ids.js';

/**
 * The schema of `.github/slopgate.yml` / `.github/slopgate.toml`. Every key is optional and has a
 * default; unknown keys are errors (strict), so a typo never silently falls back to a default.
 * `schemas/slopgate.schema.json` is generated from this file (`slopgate schema`).
 */
const globList = z.array(z.string().min(1)).describe('glob patterns, matched against repo-relative paths');

const knownCategories = () => Object.keys(ROUTE_TABLE).join(', ');

/** One standing dismissal: findings of this category in files matching this glob are dismissed, with the reason. */
const findingDismissal = z
  .object({
    path: z.string().min(1).describe('glob of the repo-relative paths it covers'),
    category: z
      .string()
      .refine((c) => isCategory(c), {
        error: (iss) => `unknown finding category '${String(iss.input)}'; known categories: ${knownCategories()}`,
      })
      .describe('the finding category it dismisses (e.g. dead-link)'),
    reason: z
      .string()
      .trim()
      .min(1, 'a dismissal needs a reason')
      .max(500)
      .describe('why, shown in the report next to the dismissed finding'),
  })
  .strict();

const guardIdList = z.array(
  z.string().refine((id) => canonicalGuardId(id) !== undefined, {
    error: (iss) => `unknown guard id '${String(iss.input)}'; known ids: ${knownGuardIdsText()}`,
  }),
);

/**
 * Categories whose severity no config may change: the gate's own failures and checks it could not run
 * (an outage or a missing result must never read as a pass), and a pull request that edits the
 * workflow running slopgate.
 */
export const FIXED_SEVERITY = ['guard-error', 'critic-error', 'stuck-detected', 'config-invalid', 'tests-not-run', 'gate-workflow-changed'];

const severityMap = z
  .record(z.string(), z.enum(['fail', 'risk', 'nit']))
  .superRefine((map, ctx) => {
    for (const key of Object.keys(map)) {
      if (FIXED_SEVERITY.includes(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `the severity of '${key}' cannot be changed: it reports a check that did not run or a line only a maintainer may cross`,
        });
      } else if (!isCategory(key)) {
        ctx.addIssue({ code: 'custom', path: [key], message: `unknown finding category '${key}'; known categories: ${knownCategories()}` });
      }
    }
  })
  .describe("severity per finding category, e.g. { dead-link: nit, low-psi: risk } (the gate's own failures cannot be changed)");

/** The test runners tests.runner can name. */
export const RUNNER_NAMES = ['pytest', 'go', 'cargo', 'maven', 'vitest', 'jest', 'node-test', 'npm-test'] as const;

/** A dismissal inside a path override: its `path` defaults to the override's `paths`. */
const overrideDismissal = findingDismissal.extend({
  path: z.string().min(1).optional().describe("glob of the paths it covers (default: the override's paths)"),
});

/** One entry of `overrides`: settings for the files matching `paths`; later entries win over earlier ones. */
const pathOverride = z
  .object({
    paths: globList
      .min(1, 'an override needs at least one glob in paths')
      .describe('the files (and workspace packages, by their manifest) it applies to'),
    guards: z
      .object({
        disable: guardIdList.optional().describe('guards that do not look at these files'),
        enable: guardIdList.optional().describe('guards turned off at the top level that do look at these files'),
      })
      .strict()
      .optional(),
    severity: severityMap.optional(),
    ignore: z
      .object({
        findings: z.array(overrideDismissal).optional().describe('standing dismissals for these files'),
        inline: z.boolean().optional().describe('honour slopgate-ignore comments in these files'),
        inlineMaxSeverity: z
          .enum(['nit', 'risk', 'fail'])
          .optional()
          .describe('the most severe finding an inline comment may dismiss here'),
      })
      .strict()
      .optional(),
    tests: z
      .object({
        enabled: z.boolean().optional().describe('run the suite of the workspace packages whose manifest matches'),
        command: z.string().min(1).optional().describe("those packages' test command, run in the package's folder"),
        runner: z
          .enum(RUNNER_NAMES)
          .optional()
          .describe('the runner for those packages, with its default command, instead of the detected one'),
      })
      .strict()
      .optional(),
  })
  .strict();

export const configSchema = z
  .object({
    version: z.literal(1).default(1).describe('config format version'),
    strict: z.boolean().default(false).describe('treat risk findings as blocking (risk → fail)'),
    maxRounds: z.number().int().min(1).max(100).default(3).describe('refine rounds per PR before the decision is STUCK'),
    drafts: z.enum(['skip', 'run']).default('skip').describe('gate draft pull requests or skip them'),
    onInfraError: z
      .enum(['action_required', 'neutral'])
      .default('action_required')
      .describe(
        'check run conclusion when slopgate itself cannot finish (crash, clone failure, abandoned job): action_required blocks the merge until a Re-run succeeds; neutral lets it through (GitHub counts neutral as passing for required checks)',
      ),
    ignore: z
      .object({
        paths: globList.default([]).describe('changed files matching these globs are not checked'),
        authors: z.array(z.string()).default([]).describe('PRs by these logins are skipped (tier-1 fast path)'),
        findings: z
          .array(findingDismissal)
          .default([])
          .describe(
            "standing dismissals, e.g. [{ path: 'legacy/**', category: 'dead-link', reason: 'frozen docs' }]: " +
              'matching findings are reported as dismissed and do not count for the decision',
          ),
        inline: z
          .boolean()
          .default(true)
          .describe(
            "honour `slopgate-ignore <category>: <reason>` comments in the pull request (on or above the flagged line); only style nits and findings about the PR's own prose can be dismissed this way, never a maintainer-only finding",
          ),
        inlineMaxSeverity: z
          .enum(['nit', 'risk', 'fail'])
          .default('risk')
          .describe('the most severe finding an inline comment may dismiss; above it only `/slopgate dismiss` or `ignore.findings` can'),
      })
      .strict()
      .prefault({}),
    guards: z
      .object({
        disable: guardIdList.default([]).describe("guard ids to turn off, e.g. ['G11', 'psi']"),
        timeoutMs: z.number().int().min(100).max(600_000).default(30_000).describe('time budget of one guard'),
      })
      .strict()
      .prefault({}),
    manifests: z
      .object({
        allow: globList.default([]).describe('G1: manifests/sensitive paths this repo allows PRs to edit (sanction)'),
      })
      .strict()
      .prefault({}),
    imports: z
      .object({
        allow: z
          .array(z.string().min(1))
          .default([])
          .describe('G4: package names treated as declared (e.g. ones installed by tox, CI or the system image)'),
      })
      .strict()
      .prefault({}),
    limits: z
      .object({
        maxFileBytes: z
          .number()
          .int()
          .min(1)
          .default(2 * 1024 * 1024)
          .describe('G1: files above this size are flagged; text above it is not read'),
      })
      .strict()
      .prefault({}),
    docs: z
      .object({
        codeBlockFloor: z.number().gt(0).lt(1).default(0.3).describe('G13: fenced code kept below this fraction is destroyed'),
        codeBlockMinChars: z.number().int().min(0).default(50).describe('G13: fenced-code check applies from this many chars'),
        shrinkFloor: z.number().gt(0).lt(1).default(0.3).describe('G13: a doc shrunk below this fraction is destroyed'),
        shrinkMinChars: z.number().int().min(0).default(500).describe('G13: shrink check applies to docs from this size'),
        bulkShrink: z.boolean().default(true).describe('G13: run the bulk-shrink check'),
      })
      .strict()
      .prefault({}),
    psi: z
      .object({
        alpha: z.number().min(0).max(10).default(1).describe('weight of grounding Γ'),
        lambda: z.number().min(0).max(10).default(1).describe('weight of slop Ω'),
        threshold: z.number().min(0).max(1).default(0.5).describe('files scoring below this get a low-psi finding'),
      })
      .strict()
      .prefault({}),
    links: z
      .object({
        online: z.boolean().default(false).describe('G14: check external URLs over the network (DNS, then HEAD)'),
        timeoutMs: z.number().int().min(100).max(30_000).default(3000).describe('G14: per-request timeout'),
        concurrency: z.number().int().min(1).max(64).default(8).describe('G14: parallel URL checks'),
      })
      .strict()
      .prefault({}),
    tests: z
      .object({
        enabled: z.boolean().default(true).describe('run the test-regression gate (G8)'),
        command: z
          .string()
          .min(1)
          .optional()
          .describe(
            'test command for the whole repository, run at its root; overrides runner detection (and per-package runs in a monorepo)',
          ),
        runner: z.enum(RUNNER_NAMES).optional().describe('the runner to use, with its default command, instead of the detected one'),
        workspaces: z
          .enum(['auto', 'off'])
          .default('auto')
          .describe(
            'auto: in a monorepo (npm/pnpm/yarn workspaces, go.work or nested Go modules, a cargo workspace, Python subprojects) run only the suites of the packages a change affects and of those depending on them; off: one run at the root',
          ),
        setup: z.string().min(1).optional().describe('command run in the sandbox before the tests (e.g. npm ci)'),
        network: z
          .boolean()
          .default(false)
          .describe("let the sandbox reach the package registries (only) through slopgate's egress proxy, e.g. for tests.setup: npm ci"),
        install: z
          .enum(['auto', 'off'])
          .default('auto')
          .describe(
            "whether to install the project's dependencies before the runs — auto: yes (cached, in the sandbox, network only to the package registries); off: run the tests on the tree as it is",
          ),
        timeoutSec: z.number().int().min(10).max(7200).default(900).describe('wall-clock budget of one suite run'),
        reruns: z.number().int().min(0).max(10).default(2).describe('re-runs of newly failing tests to detect flakes'),
        memoryMb: z
          .number()
          .int()
          .min(128)
          .max(65_536)
          .default(4096)
          .describe('memory limit of one test run (its cgroup; per process where no cgroup can be made)'),
        diskMb: z
          .number()
          .int()
          .min(64)
          .max(262_144)
          .default(2048)
          .describe("size cap of one test run's writable tree, and of its /tmp (a tmpfs each)"),
        installDiskMb: z
          .number()
          .int()
          .min(64)
          .max(262_144)
          .default(4096)
          .describe(
            "size cap of one dependency install: the installed dependencies, the installer's HOME, TMPDIR and caches together (a tmpfs where slopgate may mount one); an install that fills it stops and is named",
          ),
        isolation: z
          .enum(['required', 'best-effort'])
          .default('required')
          .describe(
            'required: when the bubblewrap sandbox cannot be established nothing runs and the gate stops (not about your code: CLI exit 3, check run action_required); best-effort (operators only): run the tests without it, and say so',
          ),
        maxProcesses: z
          .number()
          .int()
          .min(16)
          .max(100_000)
          .default(512)
          .describe('G8: process-count limit of one test run; reaching it stops the run (fork bombs)'),
        flaky: z
          .object({
            prs: z
              .number()
              .int()
              .min(1)
              .max(100)
              .default(2)
              .describe('a test that flipped (failed, then passed on a re-run) on this many different PRs in the window is known flaky'),
            windowDays: z.number().int().min(1).max(365).default(30).describe('how far back the flaky memory looks, in days'),
          })
          .strict()
          .prefault({})
          .describe(
            'known-flaky tests: one that flipped on a base or on `prs` other PRs in the last `windowDays`; its failure is reported as known flaky and never blocks alone',
          ),
        quarantine: z
          .array(z.string().min(1))
          .default([])
          .describe(
            "tests a maintainer took out: ids or globs as the report names them (e.g. 'tests/test_net.py::test_fetch', 'py:tests/slow/**'); their failures are reported and never block",
          ),
      })
      .strict()
      .prefault({}),
    severity: severityMap.default({}),
    overrides: z
      .array(pathOverride)
      .default([])
      .describe(
        "settings by path, e.g. [{ paths: ['packages/legacy/**'], guards: { disable: ['G11'] }, severity: { dead-link: nit }, tests: { command: 'make test' } }]: a finding takes the settings of its file; a workspace package those of its manifest; later entries win",
      ),
    history: z
      .object({
        threshold: z
          .number()
          .int()
          .min(1)
          .default(2)
          .describe('G9: separate failing runs (commits) on a path within the window that make it a hotspot'),
        windowDays: z.number().int().min(1).max(365).default(7).describe('G9: look-back window'),
        includeOwnPr: z
          .boolean()
          .default(false)
          .describe(
            'G9: also count earlier runs of the same PR (off: pushing fixes to one PR is not a hotspot; maxRounds bounds that loop)',
          ),
      })
      .strict()
      .prefault({}),
    qa: z
      .object({
        enabled: z
          .boolean()
          .default(false)
          .describe('run the Q&A self-consistency phase (needs a model: SLOPGATE_LLM_*, or SLOPGATE_QA_QUESTIONER_*/_DEFENDER_*)'),
        maxDiffChars: z
          .number()
          .int()
          .min(1000)
          .max(200_000)
          .default(12_000)
          .describe('Q&A and navigator: characters of the numbered diff the models see'),
      })
      .strict()
      .prefault({}),
    navigator: z
      .object({
        enabled: z
          .boolean()
          .default(false)
          .describe('let a model break ties the route table leaves open (needs a model: SLOPGATE_NAVIGATOR_* or SLOPGATE_LLM_*)'),
      })
      .strict()
      .prefault({}),
    comments: z
      .object({
        budget: z.number().int().min(0).max(100).default(25).describe('max review comments per run; the rest go to the check run'),
        suggestions: z.boolean().default(true).describe('attach ```suggestion blocks when a fix is known'),
      })
      .strict()
      .prefault({}),
    refiner: z
      .object({
        recipes: z.boolean().default(true).describe('refine: apply the known fixes (recipes) before asking a model'),
        modelAttempts: z
          .number()
          .int()
          .min(0)
          .max(3)
          .default(2)
          .describe("refine: model replies per round, the first plus retries carrying the failing guard's message (0: recipes only)"),
        push: z
          .boolean()
          .default(false)
          .describe('App: land a kept refine patch as one commit on the branch of a same-repository PR (else a review of suggestions)'),
        auto: z
          .boolean()
          .default(false)
          .describe('App: refine a REFINE decision without waiting for `/slopgate refine` (once per head, bounded by maxRounds)'),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type SlopgateConfig = z.output<typeof configSchema>;
export type PathOverride = z.output<typeof pathOverride>;
export type SlopgateConfigInput = z.input<typeof configSchema>;

export function defaultConfig(): SlopgateConfig {
  return configSchema.parse({});
}
