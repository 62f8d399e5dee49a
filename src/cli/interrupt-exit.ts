/** Exit codes of an interrupted run: 128 + the signal's number, as a shell reports a process the signal ended. */
export const INTERRUPT_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/** Commands that run a gate in this process (the worker has its own graceful shutdown). */
const GATING = new Set(['check', 'refine', 'demo']);

/**
 * Before a command of the `slopgate` executable runs: a gating command (and the worker) first sweeps
 * what killed slopgate runs left in the temp dir (core/scratch.ts: only marked folders whose owner is
 * gone), and a gating command ends cleanly on SIGINT or SIGTERM — the sandboxes' process groups are
 * killed, the runs' tmpfs mounts unmounted, their temp and staging folders removed — then exits
 * 130 or 143. Installed only by the executable: `main()` called as a function changes no signal handling.
 */
export async function prepareCommand(command: string | undefined, writeErr: (s: string) => void): Promise<void> {
  if (!command || !(GATING.has(command) || command === 'worker')) return;
  // Loaded here, not at start-up: `--version` and `--help` need none of it.
  const { cleanUpNow, sweepStaleScratch } = await import('../core/scratch.js');
  if (GATING.has(command)) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        writeErr(
          `${process.stderr.isTTY ? '\n' : ''}slopgate: interrupted (${signal}): the test runs were stopped and their temporary folders removed\n`,
        );
        cleanUpNow();
        process.exit(INTERRUPT_EXIT[signal]);
      });
    }
  }
  await sweepStaleScratch().catch(() => []);
}
