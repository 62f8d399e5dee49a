import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError, errorMessage } from '../../core/errors.js';

/**
 * What the App server and `slopgate worker` check before they start, so that a setting that cannot
 * work ends the start with one line naming the variable and what to set (exit 2), instead of a
 * library's stack trace later: the App's private key, and the database in DATABASE_URL.
 */

const PEM = /-----BEGIN (?:RSA )?PRIVATE KEY-----[\s\S]*-----END (?:RSA )?PRIVATE KEY-----/;
const KEY_HINT =
  "download a private key from the App's settings page (General → Private keys) and set PRIVATE_KEY_PATH to the .pem file, or PRIVATE_KEY to its text";

/** The key as Probot reads it: PRIVATE_KEY (PEM text, `\n` escapes or base64), else the file PRIVATE_KEY_PATH names. */
export function checkPrivateKey(env: NodeJS.ProcessEnv, cwd = process.cwd()): void {
  const text = env.PRIVATE_KEY?.trim();
  if (text) {
    const decoded = Buffer.from(text, 'base64').toString('base64') === text ? Buffer.from(text, 'base64').toString('utf8') : text;
    if (!PEM.test(decoded.replace(/\\n/g, '\n')))
      throw new InputError('PRIVATE_KEY is not a PEM private key (no BEGIN/END PRIVATE KEY lines)', KEY_HINT);
    return;
  }
  const path = env.PRIVATE_KEY_PATH?.trim();
  if (!path) throw new InputError('neither PRIVATE_KEY nor PRIVATE_KEY_PATH is set: the App cannot sign in to GitHub', KEY_HINT);
  let content: string;
  try {
    content = readFileSync(resolve(cwd, path), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read by this user' : `cannot be read (${errorMessage(err)})`;
    throw new InputError(`PRIVATE_KEY_PATH=${path}: the file ${why}`, KEY_HINT);
  }
  if (!PEM.test(content))
    throw new InputError(`PRIVATE_KEY_PATH=${path} is not a PEM private key (no BEGIN/END PRIVATE KEY lines)`, KEY_HINT);
}

/** The error's code, from a pg error, a socket error or the AggregateError of a name with several addresses. */
function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; errors?: unknown[]; cause?: unknown };
  if (typeof e.code === 'string') return e.code;
  return codeOf(e.errors?.[0]) ?? codeOf(e.cause);
}

/** DATABASE_URL without its password: the host, port and database to name in a message. */
export function databaseWhere(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return 'an address that is not a URL';
  }
}

const DB_PROBLEMS: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ECONNRESET: 'the server closed the connection',
  '28P01': 'the password was refused',
  '28000': 'the server refused this user',
  '3D000': 'the database does not exist',
  ERR_INVALID_URL: 'it is not a URL',
};

/**
 * A failure to reach the database at start, as a configuration error naming DATABASE_URL (without its
 * password); any other error is returned as it is.
 */
export function databaseStartError(err: unknown, url: string): unknown {
  if (errorMessage(err).includes('must start with postgres'))
    return new InputError(
      `DATABASE_URL is not a PostgreSQL URL (${databaseWhere(url)})`,
      'set DATABASE_URL=postgres://user:password@host:5432/database',
    );
  const code = codeOf(err);
  const problem = code
    ? DB_PROBLEMS[code]
    : /connection terminated|Connection terminated unexpectedly/i.test(errorMessage(err))
      ? 'the server closed the connection'
      : undefined;
  if (!problem) return err;
  return new InputError(
    `cannot use the database in DATABASE_URL (${databaseWhere(url)}): ${problem}`,
    'start PostgreSQL there, or set DATABASE_URL=postgres://user:password@host:5432/database to one that runs',
  );
}
