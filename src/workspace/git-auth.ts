import { execFile } from 'node:child_process';
import { errorMessage } from '../core/errors.js';
import { gitEnv } from '../core/git.js';

/**
 * Credentials for one git command: a user name and a token, sent as HTTP basic auth. The token travels
 * only in the child process's environment (as an `http.extraHeader` given through
 * GIT_CONFIG_COUNT/KEY/VALUE), so it never lands in a git config file, a remote URL on disk, the
 * process's argv or a log line. The user name is the host's (GitHub's tokens: `x-access-token`).
 */
export interface GitCredentials {
  username: string;
  token: string;
}

/** The user name GitHub takes with an installation or workflow token. */
export const GITHUB_TOKEN_USER = 'x-access-token';

function basicAuth(creds: GitCredentials): string {
  return Buffer.from(`${creds.username}:${creds.token}`).toString('base64');
}

/** Environment that makes git send `Authorization: Basic <username>:<token>` to the remote. */
export function authEnv(creds?: GitCredentials): Record<string, string> {
  const env: Record<string, string> = {
    // No credential helper of the host may answer for us (or store our token).
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'credential.helper',
    GIT_CONFIG_VALUE_0: '',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
  };
  if (creds?.token) {
    const basic = basicAuth(creds);
    env.GIT_CONFIG_COUNT = '2';
    env.GIT_CONFIG_KEY_1 = 'http.extraHeader';
    env.GIT_CONFIG_VALUE_1 = `Authorization: Basic ${basic}`;
  }
  return env;
}

/** Removes any trace of the token (raw or base64) from text that may reach a log or a check run. */
export function redactToken(text: string, creds?: GitCredentials): string {
  if (!creds?.token) return text;
  const basic = basicAuth(creds);
  return text.split(creds.token).join('[token]').split(basic).join('[token]');
}

export class WorkspaceGitError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'WorkspaceGitError';
  }
}

/**
 * The protocols git may use for a remote URL: only the URL's own (https, http or file), never
 * `ext::` (which runs a command) or anything a config file could point at later.
 */
export function allowedProtocols(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  const scheme = m ? m[1]!.toLowerCase() : url.startsWith('/') ? 'file' : '';
  if (scheme === 'https' || scheme === 'http' || scheme === 'file') return scheme;
  throw new Error(`refusing remote URL with protocol '${scheme || url.split(':')[0]}': only https, http and file are used`);
}

/**
 * Settings given on every git command line, which beat any config file: no hooks (a planted
 * reference-transaction or post-checkout hook never runs), no fsmonitor command, no `ext::` transport,
 * no credential helper.
 */
export const HARDENING_ARGS = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'protocol.ext.allow=never',
  '-c',
  'protocol.allow=user',
  '-c',
  'credential.helper=',
];

export interface RunGitOptions {
  creds?: GitCredentials;
  /** The remote URL this command talks to: its protocol becomes the only one allowed. */
  remoteUrl?: string;
  input?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Runs git with the credentials in its environment only; errors never carry the token. */
export function runGit(cwd: string, args: string[], opts: RunGitOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    // Commands without a remote of their own may still fetch lazily (partial clone): the mirror's
    // protocols, never ext:: or ssh.
    let protocols = 'https:http:file';
    try {
      if (opts.remoteUrl) protocols = allowedProtocols(opts.remoteUrl);
    } catch (err) {
      reject(new WorkspaceGitError(errorMessage(err), ''));
      return;
    }
    const child = execFile(
      'git',
      [...HARDENING_ARGS, ...args],
      {
        cwd,
        // GIT_ALLOW_PROTOCOL also holds for submodules and lazy fetches; GIT_PROTOCOL_FROM_USER=0
        // keeps protocol.allow=user from allowing anything else.
        env: gitEnv({
          ...authEnv(opts.creds),
          GIT_ALLOW_PROTOCOL: protocols,
          GIT_PROTOCOL_FROM_USER: '0',
          GIT_CONFIG_NOSYSTEM: '1',
          ...(opts.env ?? {}),
        }),
        maxBuffer: 256 * 1024 * 1024,
        timeout: opts.timeoutMs ?? 10 * 60_000,
        killSignal: 'SIGKILL',
      },
      (err, stdout, stderr) => {
        if (err) {
          const clean = redactToken(stderr, opts.creds).trim();
          const first = clean.split('\n').find((l) => /fatal|error/i.test(l)) ?? clean.split('\n')[0] ?? '';
          const what = args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '-c') ?? args[0];
          reject(new WorkspaceGitError(`git ${what} failed: ${first || redactToken(err.message, opts.creds)}`, clean));
          return;
        }
        resolve(stdout);
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}
