import type { Report } from '../core/report.js';

/**
 * The first line of every rendering when G8 ran a PR's tests without the sandbox (an operator allowed
 * `tests.isolation: best-effort` and the sandbox could not be established), or null.
 */
export function isolationWarning(report: Report): string | null {
  const sandbox = report.sections.tests?.sandbox;
  if (sandbox?.sandbox !== 'none') return null;
  const why = sandbox.unavailable ? `: ${sandbox.unavailable.replace(/[\u0000-\u001f<>]/g, ' ').slice(0, 300)}` : '';
  return `WARNING: the tests ran without isolation (tests.isolation: best-effort)${why}`;
}
