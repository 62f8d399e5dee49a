import { stripControl } from '../report/format-helpers.js';

/** Where the progress line is drawn: a terminal stream (stderr). */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/** One line on the terminal that says what slow work is going on, redrawn in place and cleared at the end. */
export interface ProgressLine {
  update(text: string): void;
  done(): void;
}

const CLEAR = '\r\u001b[K';

const QUIET: ProgressLine = { update: () => undefined, done: () => undefined };

/**
 * A progress line on `stream` when it is a terminal and `wanted`; otherwise one that draws nothing (a pipe, a
 * CI log or `--format json` gets no carriage returns). Text is cut to the terminal's width so it never wraps,
 * and drawn without control characters (it may name a file of the pull request).
 */
export function progressLine(stream: ProgressStream, wanted: boolean): ProgressLine {
  if (!wanted || !stream.isTTY) return QUIET;
  let shown = false;
  return {
    update(text) {
      const width = Math.max(20, (stream.columns ?? 80) - 1);
      const line = `slopgate: ${stripControl(text.replace(/\s+/g, ' '))}`;
      stream.write(`${CLEAR}${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
      shown = true;
    },
    done() {
      if (shown) stream.write(CLEAR);
      shown = false;
    },
  };
}
