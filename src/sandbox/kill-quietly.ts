/** Send `signal` to `pid`, ignoring a process that has already exited (or was never ours to signal). */
export function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
