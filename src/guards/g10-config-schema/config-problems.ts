import { parseConfigDocument, type PathSegment } from './config-documents.js';
import type { SchemaTarget } from './config-targets.js';
import { closedTableProblems } from './closed-tables.js';
import { coverageProblems } from './coverage-options.js';
import { problemsFrom, type SchemaProblem } from './schema-errors.js';
import { validateBundled } from './schema-registry.js';
import { tsconfigOptionProblems } from './tsconfig-options.js';

/** True when `inner` is `outer` or lies below it. */
function under(inner: PathSegment[], outer: PathSegment[]): boolean {
  return outer.length <= inner.length && outer.every((seg, i) => String(seg) === String(inner[i]));
}

/** The problems of one config text, the line of each, and the parsed data (for the tool rules). */
export interface SchemaCheck {
  problems: SchemaProblem[];
  lineOf: (p: SchemaProblem) => number;
  data: unknown;
}

/** Problems of one text against its schema; null when the text does not parse (G2 reports that). */
export function schemaProblems(text: string, target: SchemaTarget): SchemaCheck | null {
  const doc = parseConfigDocument(text, target.format);
  if (!doc) return null;
  // An empty YAML file is null: nothing to validate (and nothing wrong with the schema's shape).
  if (doc.data === null || doc.data === undefined) return { problems: [], lineOf: () => 1, data: doc.data };
  const errors = validateBundled(target.schema, doc.data);
  const opaque = doc.opaque ?? [];
  const problems = (errors.length === 0 ? [] : problemsFrom(errors, doc.data)).filter((p) => !opaque.some((o) => under(p.path, o)));
  // coverage.py has no bundled schema: its option table is checked by hand; so are the top levels of
  // tools with a closed key set that their schema leaves open.
  if (target.schema === 'pyproject') problems.push(...coverageProblems(doc.data));
  addNew(problems, closedTableProblems(target.schema, doc.data));
  return { problems, lineOf: (p) => doc.lineOf(p.path), data: doc.data };
}

function addNew(problems: SchemaProblem[], more: SchemaProblem[]): void {
  const seen = new Set(problems.map((p) => p.key));
  for (const p of more) if (!seen.has(p.key)) problems.push(p);
}

/** {@link schemaProblems}, plus what only the tool itself can tell (tsconfig options, from the TypeScript compiler). */
export async function configProblems(text: string, target: SchemaTarget): Promise<SchemaCheck | null> {
  const check = schemaProblems(text, target);
  if (check && (target.schema === 'tsconfig' || target.schema === 'jsconfig')) addNew(check.problems, await tsconfigOptionProblems(text));
  return check;
}
