import { stripControl } from '../report/format-helpers.js';

/** Where progress is told: stderr, a terminal or not. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/** What the progress line knows of time: injectable, so that a test needs no real waiting. */
export interface ProgressClock {
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

/** Says which slow step is running now (each `update` is a new stage) and stops at the end. */
export interface ProgressLine {
  update(text: string): void;
  /**
   * A named stage that runs beside others (the base suite, the head suite, a project tool) starts; the
   * returned function ends it. While any runs, the line names those (with their times) instead of `update`'s text.
   */
  begin(name: string): () => void;
  done(): void;
}

const CLEAR = '\r\u001b[K';

/** On a terminal the line's clock is redrawn every second; in a log a heartbeat line every 30 s. */
export const REDRAW_MS = 1_000;
export const HEARTBEAT_MS = 30_000;

const QUIET: ProgressLine = { update: () => undefined, begin: () => () => undefined, done: () => undefined };

const realClock: ProgressClock = {
  now: () => Date.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** `45s`, `1m30s`, `1h02m`. */
export function elapsedText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/**
 * Progress of slow work on `stream`, unless not `wanted` (`--quiet`). On a terminal: one line redrawn in
 * place, naming the stage with how long it has run, cut to the terminal's width when it has one (a width
 * of 0 or none is not cut), cleared at the end. Elsewhere (a CI log, a pipe): one plain line per stage and,
 * while a stage runs, a heartbeat line every 30 s, so that a long suite never looks like a hang. Text is
 * written without control characters (it may name a file of the pull request).
 */
export function progressLine(stream: ProgressStream, wanted: boolean, clock: ProgressClock = realClock): ProgressLine {
  if (!wanted) return QUIET;
  const tty = stream.isTTY === true;
  const clean = (text: string) => stripControl(text.replace(/\s+/g, ' ')).trim();
  let stage: { name: string; since: number } | undefined;
  const running = new Map<number, { name: string; since: number }>();
  let ids = 0;
  let shown = false;
  let stop: (() => void) | undefined;
  const ran = (since: number) => clock.now() - since;
  const now = () => (running.size > 0 ? [...running.values()] : stage ? [stage] : []);
  const draw = () => {
    const parts = now().map((s) => (ran(s.since) >= 1000 ? `${s.name} ${elapsedText(ran(s.since))}` : s.name));
    const line = `slopgate: ${parts.join(' · ')}`;
    const columns = stream.columns ?? 0;
    const width = columns > 0 ? Math.max(20, columns - 1) : Infinity;
    stream.write(`${CLEAR}${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    shown = true;
  };
  const beat = () => {
    const parts = now().map((s) => `${s.name} running, ${elapsedText(ran(s.since))}`);
    if (parts.length) stream.write(`slopgate: ${parts.join('; ')}\n`);
  };
  const tell = (line: string) => (tty ? draw() : stream.write(`slopgate: ${line}\n`));
  const ticking = () => (stop ??= clock.every(tty ? REDRAW_MS : HEARTBEAT_MS, tty ? draw : beat));
  return {
    update(text) {
      const name = clean(text);
      if (name === stage?.name) return;
      stage = { name, since: clock.now() };
      tell(name);
      ticking();
    },
    begin(text) {
      const id = ++ids;
      const entry = { name: clean(text), since: clock.now() };
      running.set(id, entry);
      tell(entry.name);
      ticking();
      return () => {
        if (!running.delete(id)) return;
        if (tty) draw();
        else stream.write(`slopgate: ${entry.name} done, ${elapsedText(ran(entry.since))}\n`);
      };
    },
    done() {
      stop?.();
      stop = undefined;
      if (tty && shown) stream.write(CLEAR);
      shown = false;
      stage = undefined;
      running.clear();
    },
  };
}
