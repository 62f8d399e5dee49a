import { posix } from 'node:path';
import type { FileTestCoverage } from '../core/report-sections.js';
import type { SuiteResult, UnitStatus } from '../core/suite-result.js';

/**
 * For each changed file a test unit holds (a Go package's folder, a test module, a test file): whether
 * that unit built and ran at the base and at the head. A file whose unit did not build or run at either
 * side was not exercised by the run, whatever else passed. Files no unit names (most source files of a
 * Python or JS project, whose tests import them) get no entry: the run does not know which units reach them.
 */
export function fileCoverage(
  changed: readonly string[],
  baseline: SuiteResult | undefined,
  candidate: SuiteResult | undefined,
): FileTestCoverage[] {
  if (!baseline || !candidate) return [];
  const out: FileTestCoverage[] = [];
  for (const path of changed) {
    const holds = (u: UnitStatus) =>
      u.file !== undefined &&
      u.kind !== 'suite' &&
      (u.file === path || (u.kind === 'package' && path.endsWith('.go') && u.file === posix.dirname(path)));
    const atBase = baseline.units.filter(holds);
    const atHead = candidate.units.filter(holds);
    if (atBase.length === 0 && atHead.length === 0) continue;
    const ranAt = (units: UnitStatus[], side: SuiteResult) =>
      units.some((u) => u.status === 'ok' && side.tests.some((t) => t.unit === u.id)) ||
      (units.some((u) => u.status === 'ok') && units.every((u) => u.status === 'ok'));
    const base = ranAt(atBase, baseline);
    const head = ranAt(atHead, candidate);
    const unit = (atHead[0] ?? atBase[0])?.id ?? path;
    if (base || head) {
      out.push({
        path,
        status: 'ran',
        reason: `${unit} ran at ${base && head ? 'the base and the head' : base ? 'the base' : 'the head'}`,
      });
      continue;
    }
    const broken = [...atHead, ...atBase].find((u) => u.status === 'broken');
    const why = broken?.message ? `: ${firstLine(broken.message)}` : '';
    out.push({ path, status: 'not-run', reason: `${unit} did not build or run at the base or the head${why}` });
  }
  return out;
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim()) ?? '').trim().slice(0, 200);
}
