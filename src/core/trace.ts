import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

/** Structured logger (JSON lines). Secrets are redacted by key wherever they appear. */
export function createLogger(opts: { level?: string; destination?: DestinationStream | number | string } = {}): Logger {
  const level = opts.level ?? process.env.LOG_LEVEL ?? 'warn';
  const options = {
    level,
    base: { name: 'slopgate' },
    redact: {
      paths: [
        'token',
        '*.token',
        'headers.authorization',
        '*.headers.authorization',
        'privateKey',
        '*.privateKey',
        'secret',
        '*.secret',
        'apiKey',
        '*.apiKey',
      ],
      censor: '[redacted]',
    },
  };
  if (opts.destination === undefined) return pino(options, pino.destination(2));
  if (typeof opts.destination === 'number' || typeof opts.destination === 'string') {
    return pino(options, pino.destination({ dest: opts.destination, sync: true, mkdir: true }));
  }
  return pino(options, opts.destination);
}

export const silentLogger: Logger = pino({ level: 'silent' });

export type TracePhase = 'pr' | 'refiner';

/** G3: every guard failure becomes one `guard.fail` event with guard, path and phase. */
export interface GuardFailEvent {
  guard: string;
  phase: TracePhase;
  path?: string;
  line?: number;
  category: string;
  severity: string;
  findingId: string;
  message: string;
}

export function traceGuardFail(log: Logger, event: GuardFailEvent): void {
  log.info({ event: 'guard.fail', ...event, message: event.message.slice(0, 500) }, 'guard.fail');
}
