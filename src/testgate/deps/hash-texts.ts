import { createHash } from 'node:crypto';

/** One hash over files' paths and contents, in path order (a cache key's dependency files). */
export function hashTexts(texts: Map<string, string>): string {
  const h = createHash('sha256');
  for (const [p, t] of [...texts].sort(([a], [b]) => (a < b ? -1 : 1))) h.update(`${p}\0${t}\0`);
  return h.digest('hex');
}
