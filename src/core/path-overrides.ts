import picomatch from 'picomatch';
import type { PathOverride, SlopgateConfig } from './config-schema.js';
import type { Severity } from './finding.js';
import type { RunnerId } from './suite-result.js';

/**
 * The effective settings of one path: the top level of the config, then every entry of `overrides`
 * whose `paths` match it, in order (a later entry wins). Read from the default branch like the rest of
 * the config, so a pull request cannot move its own files out from under a rule: it can only put files
 * where the maintainers already decided what applies.
 */

const matchers = new WeakMap<PathOverride, (path: string) => boolean>();

function matches(o: PathOverride, path: string): boolean {
  let m = matchers.get(o);
  if (!m) {
    m = picomatch(o.paths, { dot: true });
    matchers.set(o, m);
  }
  return m(path);
}

/** The overrides that apply to a path, in the order they are written. */
export function overridesAt(config: SlopgateConfig, path: string | undefined): PathOverride[] {
  if (path === undefined || config.overrides.length === 0) return [];
  return config.overrides.filter((o) => matches(o, path));
}

const upper = (ids: readonly string[] | undefined) => (ids ?? []).map((g) => g.toUpperCase());

/** Whether a guard looks at a path: guards.disable, then each matching override's disable and enable. */
export function guardOnAt(config: SlopgateConfig, guardId: string, path: string | undefined): boolean {
  const id = guardId.toUpperCase();
  let on = !upper(config.guards.disable).includes(id);
  for (const o of overridesAt(config, path)) {
    if (upper(o.guards?.disable).includes(id)) on = false;
    if (upper(o.guards?.enable).includes(id)) on = true;
  }
  return on;
}

/** True when some override turns the guard on, so a guard disabled at the top level still runs (for those paths). */
export function guardOnSomewhere(config: SlopgateConfig, guardId: string): boolean {
  const id = guardId.toUpperCase();
  return !upper(config.guards.disable).includes(id) || config.overrides.some((o) => upper(o.guards?.enable).includes(id));
}

/** The severity the config sets for a category at a path, if any. */
export function severityAt(config: SlopgateConfig, category: string, path: string | undefined): Severity | undefined {
  let sev: Severity | undefined = config.severity[category];
  for (const o of overridesAt(config, path)) sev = o.severity?.[category] ?? sev;
  return sev;
}

/** ignore.inline and ignore.inlineMaxSeverity at a path. */
export function inlinePolicyAt(config: SlopgateConfig, path: string | undefined): { inline: boolean; inlineMaxSeverity: Severity } {
  let { inline, inlineMaxSeverity } = config.ignore;
  for (const o of overridesAt(config, path)) {
    inline = o.ignore?.inline ?? inline;
    inlineMaxSeverity = o.ignore?.inlineMaxSeverity ?? inlineMaxSeverity;
  }
  return { inline, inlineMaxSeverity };
}

/** Every standing dismissal: the top level's and the overrides' (whose path defaults to the override's paths). */
export function findingDismissals(config: SlopgateConfig): { paths: string[]; category: string; reason: string }[] {
  return [
    ...config.ignore.findings.map((r) => ({ paths: [r.path], category: r.category, reason: r.reason })),
    ...config.overrides.flatMap((o) =>
      (o.ignore?.findings ?? []).map((r) => ({ paths: r.path ? [r.path] : o.paths, category: r.category, reason: r.reason })),
    ),
  ];
}

/** The tests settings of a workspace package, by its manifest path. */
export function testsAt(config: SlopgateConfig, manifest: string): { enabled: boolean; command?: string; runner?: RunnerId } {
  let enabled = config.tests.enabled && guardOnAt(config, 'G8', manifest);
  let command: string | undefined;
  let runner: RunnerId | undefined = config.tests.runner;
  for (const o of overridesAt(config, manifest)) {
    enabled = o.tests?.enabled ?? enabled;
    if (o.tests?.command) {
      command = o.tests.command;
      runner = undefined;
    }
    if (o.tests?.runner) {
      runner = o.tests.runner;
      command = undefined;
    }
  }
  if (!guardOnAt(config, 'G8', manifest)) enabled = false;
  return { enabled, ...(command ? { command } : {}), ...(runner ? { runner } : {}) };
}

/** True when some package may have its tests on although tests.enabled is false at the top level. */
export function testsOnSomewhere(config: SlopgateConfig): boolean {
  return config.tests.enabled || config.overrides.some((o) => o.tests?.enabled === true);
}
