import { dependencyReaderFor, type DepMap } from '../../repo/manifests/dependency-specs.js';

export interface DependencyChange {
  name: string;
  /** Where the dependency lives: 'dependencies', 'devDependencies', 'project.dependencies', … */
  group: string;
  kind: 'added' | 'removed' | 'changed';
  before?: string;
  after?: string;
}

/**
 * The dependency changes between two versions of a manifest, or null when the manifest kind is not
 * understood or one side does not parse (the caller then falls back to line counts).
 */
export function dependencyChanges(path: string, before: string | null, after: string | null): DependencyChange[] | null {
  const read = dependencyReaderFor(path);
  if (!read) return null;
  let a: DepMap;
  let b: DepMap;
  try {
    a = before === null ? new Map<string, string>() : read(before);
    b = after === null ? new Map<string, string>() : read(after);
  } catch {
    return null;
  }
  const changes: DependencyChange[] = [];
  const split = (key: string) => key.split('\0') as [string, string]; // cast: keys are built as group\0name
  for (const [key, spec] of b) {
    const [group, name] = split(key);
    const before = a.get(key);
    if (before === undefined) changes.push({ name, group, kind: 'added', after: spec });
    else if (before !== spec) changes.push({ name, group, kind: 'changed', before, after: spec });
  }
  for (const [key, spec] of a) {
    const [group, name] = split(key);
    if (!b.has(key)) changes.push({ name, group, kind: 'removed', before: spec });
  }
  return changes;
}

function spec(s: string | undefined): string {
  return s ? ` ${s}` : '';
}

/** One plain phrase per change: "adds `left-pad` ^1.3.0 (dependencies)". */
export function describeChange(c: DependencyChange): string {
  if (c.kind === 'added') return `adds \`${c.name}\`${spec(c.after)} (${c.group})`;
  if (c.kind === 'removed') return `removes \`${c.name}\`${spec(c.before)} (${c.group})`;
  return `changes \`${c.name}\` from ${c.before || 'any version'} to ${c.after || 'any version'} (${c.group})`;
}
