import { isRecord } from '../core/is-record.js';
import type { Revision } from '../core/revision.js';

/**
 * Which of the files that decide what a test run selects did a change edit? A PR can make tests
 * silently stop running without touching them: `addopts = -k zzz` in pytest.ini, `collect_ignore` in a
 * conftest.py, an `include` in vitest.config.ts, or a new `test` script in package.json. The gate uses
 * this list to name the cause when tests that ran at the base do not run any more.
 */
export interface TestConfigChange {
  path: string;
  /** What changed in it, e.g. "[pytest] section", "scripts.test". */
  what: string;
  /** A package manifest whose test script ran something at the base and is a no-op (`exit 0`, `true`, `echo …`) with the change. */
  switchedOff?: boolean;
}

/** Whole files whose every edit can change test selection. */
const WHOLE_FILE = [
  /(^|\/)conftest\.py$/,
  /(^|\/)(jest|vitest|vite)\.config\.[cm]?[jt]s$/,
  /(^|\/)vitest\.(workspace|projects)\.[cm]?[jt]s$/,
  /(^|\/)jest\.config\.json$/,
  /(^|\/)\.mocharc(\.\w+)?$/,
  /(^|\/)pytest\.ini$/,
];

/** Vendored trees are not the project's test configuration. */
const VENDORED = /(^|\/)(node_modules|vendor|third_party)\//;

/** A package manifest, at the root or in any workspace package. */
const MANIFEST = /(^|\/)package\.json$/;

/** A test script that runs nothing. */
const NO_OP = /^\s*(exit\s+0|true|:|echo\b[^&|;]*|node\s+-e\s+(['"])\s*\2)?\s*;?\s*$/;

/** Files of which only one section decides test selection: path → section headers (INI/TOML). */
const SECTIONED: Record<string, { header: RegExp; label: string }> = {
  'pyproject.toml': { header: /^\[tool\.pytest(\.ini_options)?\]\s*$/, label: '[tool.pytest.ini_options]' },
  'setup.cfg': { header: /^\[tool:pytest\]\s*$/, label: '[tool:pytest]' },
  'tox.ini': { header: /^\[pytest\]\s*$/, label: '[pytest]' },
};

/** The lines of one `[section]` (header to the next header), or null when it is not there. */
export function sectionText(text: string, header: RegExp): string | null {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => header.test(l.trim()));
  if (start < 0) return null;
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (/^\s*\[[^\]]+\]\s*$/.test(l)) break;
    const t = l.trim();
    if (t && !t.startsWith('#') && !t.startsWith(';')) out.push(t);
  }
  return out.join('\n');
}

const PACKAGE_KEYS = ['scripts.test', 'scripts.pretest', 'scripts.posttest', 'jest', 'vitest', 'mocha'];

function packageField(text: string | null, key: string): string | undefined {
  if (text === null) return undefined;
  try {
    let v: unknown = JSON.parse(text);
    for (const part of key.split('.')) v = isRecord(v) ? v[part] : undefined;
    return v === undefined ? undefined : JSON.stringify(v);
  } catch {
    return '(unparseable)';
  }
}

function scriptOf(text: string | null): string | undefined {
  const v = packageField(text, 'scripts.test');
  if (v === undefined || v === '(unparseable)') return undefined;
  const parsed: unknown = JSON.parse(v);
  return typeof parsed === 'string' ? parsed : undefined;
}

/** The test-selection files that differ between `base` and `candidate`, with what changed in each. */
export async function testConfigChanges(base: Revision, candidate: Revision): Promise<TestConfigChange[]> {
  const [b, c] = await Promise.all([base.entries(), candidate.entries()]);
  const paths = [...new Set([...b.keys(), ...c.keys()])].sort();
  const out: TestConfigChange[] = [];
  for (const path of paths) {
    const before = b.get(path)?.oid;
    const after = c.get(path)?.oid;
    if (before === after) continue;
    if (WHOLE_FILE.some((re) => re.test(path))) {
      out.push({ path, what: before === undefined ? 'added' : after === undefined ? 'deleted' : 'edited' });
      continue;
    }
    if (VENDORED.test(path)) continue;
    const section = SECTIONED[path.split('/').pop() ?? path];
    if (section) {
      const { header, label } = section;
      const [x, y] = await Promise.all([base.readText(path), candidate.readText(path)]);
      const sx = x === null ? null : sectionText(x, header);
      const sy = y === null ? null : sectionText(y, header);
      if (sx !== sy) out.push({ path, what: `its ${label} section` });
      continue;
    }
    if (MANIFEST.test(path)) {
      const [x, y] = await Promise.all([base.readText(path), candidate.readText(path)]);
      const keys = PACKAGE_KEYS.filter((k) => packageField(x, k) !== packageField(y, k));
      if (!keys.length) continue;
      const [before, after] = [scriptOf(x), scriptOf(y)];
      const switchedOff =
        before !== undefined && !NO_OP.test(before) && (after === undefined || NO_OP.test(after)) && keys.includes('scripts.test');
      out.push({ path, what: keys.join(', '), ...(switchedOff ? { switchedOff: true } : {}) });
    }
  }
  return out;
}

/** "pytest.ini (edited), package.json (scripts.test)". */
export function describeChanges(changes: TestConfigChange[]): string {
  return changes.map((c) => `\`${c.path}\` (${c.what})`).join(', ');
}
