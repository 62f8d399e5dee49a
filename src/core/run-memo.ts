/** A per-run memo: `compute` runs once per key and every caller shares the promise (see GuardContext.memo). */
export function runMemo(store = new Map<string, Promise<unknown>>()): <T>(key: string, compute: () => Promise<T>) => Promise<T> {
  return <T>(key: string, compute: () => Promise<T>): Promise<T> => {
    let v = store.get(key);
    if (!v) {
      v = compute();
      store.set(key, v);
    }
    // The key names one computation, so the stored promise has the type its first caller gave it.
    return v as Promise<T>;
  };
}
