import { describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../src/queue/memory-queue.js';
import { ShutdownError, supersededBy, type QueueJob } from '../../src/queue/types.js';

/** A promise the test resolves by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

/** Resolves when `signal` aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener('abort', () => r(), { once: true })));

describe('in-process queue', () => {
  it('never runs more jobs at once than its concurrency, and runs them all', async () => {
    const q = new MemoryQueue<number>({ concurrency: 2 });
    let active = 0;
    let peak = 0;
    const done: number[] = [];
    await q.process(async (job) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setImmediate(r));
      active--;
      done.push(job.payload);
    });
    for (let i = 0; i < 8; i++) await q.enqueue({ key: `acme/app#${i}`, payload: i });
    await q.onIdle();
    expect(peak).toBe(2);
    expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('three pushes to one PR while it waits: only the newest runs, the older two are closed out as superseded', async () => {
    const q = new MemoryQueue<string>({ concurrency: 1 });
    const seen: { payload: string; mode: string; by?: string }[] = [];
    const blocker = gate();
    await q.process(async (job) => {
      if (job.payload === 'other PR') await blocker.opened;
      seen.push({ payload: job.payload, mode: job.mode, ...(job.supersededBy ? { by: job.supersededBy } : {}) });
    });
    await q.enqueue({ key: 'acme/other#1', payload: 'other PR' }); // occupies the only slot
    await q.enqueue({ key: 'acme/app#7', payload: 'push 1' });
    await q.enqueue({ key: 'acme/app#7', payload: 'push 2' });
    const newest = await q.enqueue({ key: 'acme/app#7', payload: 'push 3' });
    blocker.open();
    await q.onIdle();
    expect(seen.filter((s) => s.mode === 'run').map((s) => s.payload)).toEqual(['other PR', 'push 3']);
    expect(
      seen
        .filter((s) => s.mode === 'superseded')
        .map((s) => s.payload)
        .sort(),
    ).toEqual(['push 1', 'push 2']);
    expect(seen.find((s) => s.payload === 'push 2')?.by).toBe(newest.id);
  });

  it('signals a running job to stop when a newer push arrives, and does not start the newer one until it has', async () => {
    const q = new MemoryQueue<string>({ concurrency: 4 });
    const events: string[] = [];
    const started = gate();
    await q.process(async (job, signal) => {
      events.push(`start ${job.payload}`);
      if (job.payload === 'old head') {
        started.open();
        await aborted(signal);
        events.push(`stopped ${job.payload}: superseded by ${supersededBy(signal) ? 'newer' : '?'}`);
        return;
      }
      events.push(`end ${job.payload}`);
    });
    await q.enqueue({ key: 'acme/app#3', payload: 'old head' });
    await started.opened;
    await q.enqueue({ key: 'acme/app#3', payload: 'new head' });
    await q.onIdle();
    expect(events).toEqual(['start old head', 'stopped old head: superseded by newer', 'start new head', 'end new head']);
  });

  it('closes out a job whose handler threw as abandoned, with the error, so its check run is not left in progress', async () => {
    const q = new MemoryQueue<string>();
    const calls: QueueJob<string>[] = [];
    await q.process(async (job) => {
      calls.push(job);
      if (job.mode === 'run') throw new Error('clone failed: rate limited');
    });
    await q.enqueue({ key: 'acme/app#1', payload: 'x' });
    await q.onIdle();
    expect(calls.map((c) => c.mode)).toEqual(['run', 'abandoned']);
    expect(calls[1]!.previous).toEqual({ reason: 'error', message: 'clone failed: rate limited' });
  });

  it('on stop, closes out queued jobs as abandoned and aborts running ones after the grace period', async () => {
    const q = new MemoryQueue<string>({ concurrency: 1 });
    const seen: string[] = [];
    await q.process(async (job, signal) => {
      if (job.mode !== 'run') return void seen.push(`${job.payload}: ${job.mode} (${job.previous?.reason})`);
      await aborted(signal);
      seen.push(`${job.payload}: aborted, shutdown=${signal.reason instanceof ShutdownError}`);
      throw signal.reason;
    });
    await q.enqueue({ key: 'a#1', payload: 'running' });
    await q.enqueue({ key: 'b#2', payload: 'queued' });
    await q.stop({ graceMs: 50 });
    expect(seen).toEqual(['queued: abandoned (shutdown)', 'running: aborted, shutdown=true', 'running: abandoned (shutdown)']);
    await expect(q.enqueue({ key: 'c#3', payload: 'late' })).rejects.toThrow(/stopping/);
  });
});
