/** True when `value` is one of `options`: narrows text read from input (flags, env, JSON) to a literal union. */
export function isOneOf<T extends string>(options: readonly T[], value: unknown): value is T {
  return (options as readonly unknown[]).includes(value); // widening only: any value may be looked up
}
