/** Deletes a Map's oldest entries (Maps keep insertion order) until it holds at most `max`: a bounded cache. */
export function evictOldest<K, V>(map: Map<K, V>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}
