/**
 * Whether some handles (a child process, its pipes, its IPC channel) keep this process alive: `ref()`
 * each that has it, or `unref()`. Pipes are sockets at run time though typed as plain streams, so the
 * methods are looked up, not assumed; an absent handle is skipped.
 */
export function holdHandles(handles: readonly unknown[], on: boolean): void {
  for (const h of handles) {
    if (typeof h !== 'object' || h === null) continue;
    const fn: unknown = Reflect.get(h, on ? 'ref' : 'unref');
    if (typeof fn === 'function') fn.call(h);
  }
}
