/** True for a plain JSON-like object (not null, not an array): the shape parsed config and API replies are read as. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
