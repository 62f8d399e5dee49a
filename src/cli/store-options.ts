import { resolve } from 'node:path';
import type { StoreOptions } from '../store/open-store.js';

/** What the embedded store has to say (waiting for another process, a database moved aside), on stderr. */
export function storeNotice(message: string): void {
  process.stderr.write(`slopgate: ${message}\n`);
}

/** `--db`: a PostgreSQL URL, or a PGlite folder that this process locks while it runs. */
export function cliStoreOptions(db: string): StoreOptions {
  if (/^postgres(ql)?:\/\//i.test(db)) return { url: db };
  return { dataDir: resolve(db), onNotice: (message, level) => storeNotice(level === 'warn' ? `warning: ${message}` : message) };
}
