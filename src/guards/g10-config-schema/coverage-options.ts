import { isRecord } from '../../core/is-record.js';
import type { PathSegment } from './config-documents.js';
import type { SchemaProblem } from './schema-errors.js';

/**
 * coverage.py's options in `[tool.coverage.<section>]` of pyproject.toml, with the type it reads each
 * one as (coverage 7.17.5, `CoverageConfig.CONFIG_FILE_OPTIONS`; no JSON Schema for coverage is
 * bundled). coverage warns about an option it does not know ("Unrecognized option '[tool.coverage.run]
 * x='") and ignores it; it stops ("Couldn't read config file") on a value it cannot convert. A
 * `[tool.coverage.<other>]` section may belong to a coverage plugin, so only the sections below are read.
 */
type OptionType = 'boolean' | 'string' | 'list' | 'int' | 'float';

const SECTIONS: Record<string, Record<string, OptionType>> = {
  run: {
    branch: 'boolean',
    command_line: 'string',
    concurrency: 'list',
    context: 'string',
    core: 'string',
    cover_pylib: 'boolean',
    data_file: 'string',
    debug: 'list',
    debug_file: 'string',
    disable_warnings: 'list',
    dynamic_context: 'string',
    parallel: 'boolean',
    patch: 'list',
    plugins: 'list',
    relative_files: 'boolean',
    include: 'list',
    omit: 'list',
    sigterm: 'boolean',
    source: 'list',
    source_pkgs: 'list',
    source_dirs: 'list',
    timid: 'boolean',
  },
  report: {
    exclude_lines: 'list',
    exclude_also: 'list',
    fail_under: 'float',
    format: 'string',
    ignore_errors: 'boolean',
    include_namespace_packages: 'boolean',
    partial_branches_always: 'list',
    partial_branches: 'list',
    partial_also: 'list',
    precision: 'int',
    contexts: 'list',
    include: 'list',
    omit: 'list',
    show_missing: 'boolean',
    skip_covered: 'boolean',
    skip_empty: 'boolean',
    sort: 'string',
  },
  html: {
    extra_css: 'string',
    directory: 'string',
    skip_covered: 'boolean',
    skip_empty: 'boolean',
    title: 'string',
    show_contexts: 'boolean',
  },
  xml: { output: 'string', package_depth: 'int' },
  json: { output: 'string', pretty_print: 'boolean', show_contexts: 'boolean' },
  lcov: { output: 'string', line_checksums: 'boolean' },
};

/** coverage's own conversions: a TOML value of the right type, or a string it can convert. */
function accepts(type: OptionType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return true;
    case 'boolean':
      return typeof value === 'boolean' || value === 'true' || value === 'false';
    case 'list':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'int':
      return Number.isInteger(value) || (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value));
    case 'float':
      return typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)));
  }
}

const WORDS: Record<OptionType, string> = {
  string: 'a string',
  boolean: 'a boolean (true or false)',
  list: 'a list of strings',
  int: 'an integer',
  float: 'a number',
};

/** Unknown options and values coverage cannot read, in `[tool.coverage.*]` of a parsed pyproject.toml. */
export function coverageProblems(data: unknown): SchemaProblem[] {
  const tool = isRecord(data) ? data.tool : undefined;
  const coverage = isRecord(tool) ? tool.coverage : undefined;
  if (!isRecord(coverage)) return [];
  const out: SchemaProblem[] = [];
  for (const [section, options] of Object.entries(SECTIONS)) {
    const table = coverage[section];
    if (!isRecord(table)) continue;
    for (const [name, value] of Object.entries(table)) {
      const path: PathSegment[] = ['tool', 'coverage', section, name];
      const type = options[name];
      if (type === undefined) {
        out.push({
          path,
          keyword: 'additionalProperties',
          expected: `only coverage's [${section}] options`,
          actual: JSON.stringify(value),
          key: `coverage:${section}:${name}:unknown`,
          known: Object.keys(options),
        });
      } else if (!accepts(type, value)) {
        out.push({
          path,
          keyword: 'type',
          expected: WORDS[type],
          actual: JSON.stringify(value),
          key: `coverage:${section}:${name}:type`,
        });
      }
    }
  }
  return out;
}
