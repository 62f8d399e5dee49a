import picomatch from 'picomatch';
import type { GuardContext, GuardFinding } from '../../core/guard.js';
import type { KnownFlakyTest } from '../../core/ports.js';
import type { TestsSection } from '../../core/report-sections.js';
import { errorMessage } from '../../core/errors.js';
import { locateTest, type RerunVerdict, type TestGateResult } from '../../testgate/index.js';
import type { G8KnownFlakyEvidence } from './evidence.js';
import { testName } from './finding-text.js';

/**
 * The flaky memory across PRs, applied to one test gate's result: a newly failing test that is known
 * flaky (it flipped on a base, or on `tests.flaky.prs` other PRs in the window: the store remembers
 * every flip) or that a maintainer quarantined (`tests.quarantine`, from the default branch's config)
 * is taken out of the regressions and reported on its own, never blocking. Every other regression of
 * the run stays as it was.
 */

/** A regression held back: known flaky (with what the memory knows) or quarantined. */
export interface HeldFailure {
  verdict: RerunVerdict;
  known?: KnownFlakyTest;
  quarantined?: true;
}

function allRegressions(res: TestGateResult): RerunVerdict[] {
  const own = res.regressions;
  const packages = res.workspace?.packages.flatMap((p) => p.result?.regressions ?? []) ?? [];
  const seen = new Set<string>();
  return [...own, ...packages].filter((v) => !seen.has(v.test.id) && Boolean(seen.add(v.test.id)));
}

function without(res: TestGateResult, held: ReadonlySet<string>): TestGateResult {
  const regressions = res.regressions.filter((v) => !held.has(v.test.id));
  if (!res.workspace) return { ...res, regressions };
  const packages = res.workspace.packages.map((p) => (p.result ? { ...p, result: without(p.result, held) } : p));
  return { ...res, regressions, workspace: { ...res.workspace, packages } };
}

/** The quarantine list as a matcher over a test's id and its name without the language prefix. */
function quarantineMatcher(patterns: readonly string[]): (id: string) => boolean {
  if (patterns.length === 0) return () => false;
  const exact = new Set(patterns);
  const glob = picomatch([...patterns], { dot: true });
  return (id) => exact.has(id) || exact.has(testName(id)) || glob(id) || glob(testName(id));
}

/**
 * Splits the known-flaky and quarantined failures off the result. Without a flaky memory (no store)
 * only the quarantine applies; a memory that cannot be read leaves every regression blocking (an outage
 * of the store never opens the gate) and says so in the log.
 */
export async function holdKnownFlaky(res: TestGateResult, ctx: GuardContext): Promise<{ res: TestGateResult; held: HeldFailure[] }> {
  const failing = allRegressions(res);
  if (failing.length === 0) return { res, held: [] };
  const quarantined = quarantineMatcher(ctx.config.tests.quarantine);
  const held: HeldFailure[] = failing.filter((v) => quarantined(v.test.id)).map((verdict) => ({ verdict, quarantined: true }));
  const rest = failing.filter((v) => !quarantined(v.test.id));
  const memory = ctx.services.flaky;
  const repo = ctx.services.run?.repo ?? ctx.services.tests?.repo;
  if (memory && repo && rest.length > 0) {
    const { prs, windowDays } = ctx.config.tests.flaky;
    const pr = ctx.services.run?.pr;
    try {
      const known = await memory.knownFlaky(
        repo,
        rest.map((v) => v.test.id),
        { prs, windowDays, ...(pr !== undefined ? { excludePr: pr } : {}) },
      );
      const byId = new Map(known.map((k) => [k.test, k]));
      for (const verdict of rest) {
        const k = byId.get(verdict.test.id);
        if (k) held.push({ verdict, known: k });
      }
    } catch (err) {
      ctx.log.warn({ err: errorMessage(err) }, 'flaky memory not read; every newly failing test counts');
    }
  }
  if (held.length === 0) return { res, held };
  return { res: without(res, new Set(held.map((h) => h.verdict.test.id))), held };
}

/** The tests section with the held failures named (the headline says a known-flaky test failed). */
export function withHeld(section: TestsSection, held: readonly HeldFailure[]): TestsSection {
  const known = held.filter((h) => h.known).map((h) => h.verdict.test.id);
  const quarantined = held.filter((h) => h.quarantined).map((h) => h.verdict.test.id);
  return { ...section, ...(known.length ? { knownFlaky: known } : {}), ...(quarantined.length ? { quarantined } : {}) };
}

function basisText(k: KnownFlakyTest, windowDays: number): string {
  if (k.basis === 'base') return `it flipped on the base branch in the last ${windowDays} days`;
  const prs = k.prs.slice(-5).map((n) => `#${n}`);
  const more = k.prs.length > 5 ? ` and ${k.prs.length - 5} more` : '';
  return `it flipped (failed, then passed on a re-run) on ${k.prs.length} other PRs in the last ${windowDays} days: ${prs.join(', ')}${more}`;
}

/** One `flaky-test` finding (a nit: it never blocks) per held failure. */
export async function heldFindings(held: readonly HeldFailure[], ctx: GuardContext): Promise<GuardFinding[]> {
  const out: GuardFinding[] = [];
  for (const h of held) {
    const t = h.verdict.test;
    const name = testName(t.id);
    const loc = (await locateTest(ctx.head, t).catch(() => null)) ?? (await locateTest(ctx.base, t).catch(() => null));
    const where = loc ? { path: loc.path, ...(loc.line ? { line: loc.line } : {}) } : {};
    const runs = h.verdict.runs > 1 ? ` on all ${h.verdict.runs} runs` : '';
    const message = h.known
      ? `Test \`${name}\` fails with this change${runs}, but it is known flaky: ${basisText(h.known, ctx.config.tests.flaky.windowDays)}. Its failure does not block; a failure of any other test still does.`
      : `Test \`${name}\` fails with this change${runs}; it is quarantined (tests.quarantine on the default branch), so its result does not count.`;
    out.push({
      category: 'flaky-test',
      severity: 'nit',
      ...where,
      message,
      remediation: h.known
        ? `Check whether this change touches what \`${name}\` exercises; make the test deterministic in its own PR, or quarantine it with tests.quarantine.`
        : `Take \`${name}\` out of tests.quarantine once it is fixed, so that its failures count again.`,
      evidence: {
        test: t.id,
        runs: h.verdict.runs,
        ...(h.known ? { knownFlaky: { basis: h.known.basis, prs: h.known.prs, flips: h.known.flips } } : { quarantined: true }),
      } satisfies G8KnownFlakyEvidence,
      cause: h.known ? 'known flaky' : 'quarantined',
    });
  }
  return out;
}
