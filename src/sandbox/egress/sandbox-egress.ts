import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxPrivateDir } from '../sandbox-probe.js';

/**
 * The sandbox's side of the egress proxy. The sandbox keeps its own network namespace, with nothing
 * but loopback; the proxy's unix socket is bound in, and a forwarder (node, started before the
 * command) listens on 127.0.0.1:3128 there and pipes every connection to that socket. Installers
 * find it through the usual proxy variables.
 */

export const EGRESS_PORT = 3128;
export const EGRESS_PROXY_URL = `http://127.0.0.1:${EGRESS_PORT}`;

const INSIDE = '/run/slopgate';
const SOCKET_INSIDE = `${INSIDE}/egress.sock`;
const NODE_INSIDE = `${INSIDE}/node`;
const FORWARDER_INSIDE = `${INSIDE}/egress-forwarder.cjs`;

/**
 * Tasks (processes and threads, as cgroup pids.max counts them) the forwarder may add to a run, on
 * top of the run's own limit.
 */
export const FORWARDER_TASKS = 12;

/**
 * Started in the background by {@link withForwarder}; once it listens it writes `ready` to fd 3 and
 * closes it, which is what the shell waits for. It gives up (exit 125, with a message) when it cannot
 * listen within 10 s.
 */
const FORWARDER = `'use strict';
const fs = require('node:fs');
const net = require('node:net');
const SOCKET = ${JSON.stringify(SOCKET_INSIDE)};
const PORT = ${EGRESS_PORT};
process.chdir('/');
const fail = (why) => {
  try { fs.writeSync(2, 'slopgate: the sandbox network (egress forwarder) did not start: ' + why + '\\n'); } catch {}
  process.exit(125);
};
const timer = setTimeout(() => fail('not listening after 10 s'), 10000);
const server = net.createServer({ allowHalfOpen: true }, (client) => {
  const upstream = net.connect({ path: SOCKET, allowHalfOpen: true });
  client.pipe(upstream);
  upstream.pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
});
server.on('error', (err) => fail('cannot listen on 127.0.0.1:' + PORT + ' (' + (err.code || err.message) + ')'));
server.listen(PORT, '127.0.0.1', () => {
  clearTimeout(timer);
  fs.writeSync(3, 'ready');
  fs.closeSync(3);
});
`;

let scriptFile: string | undefined;

function forwarderFile(): string {
  if (!scriptFile || !existsSync(scriptFile)) {
    scriptFile = join(sandboxPrivateDir(), 'egress-forwarder.cjs');
    writeFileSync(scriptFile, FORWARDER, { mode: 0o644 });
  }
  return scriptFile;
}

/** bwrap arguments: the proxy's socket (read-write: connecting is a write), node and the forwarder (read-only). */
export function egressMounts(socketPath: string): string[] {
  return ['--bind', socketPath, SOCKET_INSIDE, '--ro-bind', process.execPath, NODE_INSIDE, '--ro-bind', forwarderFile(), FORWARDER_INSIDE];
}

/**
 * The command line inside the sandbox: start the forwarder in the background, wait until it says it
 * listens (the read of fd 3 ends when it writes `ready` and closes it, or dies), then exec
 * `/bin/sh -c command`, as without egress.
 */
export function withForwarder(command: string): string[] {
  const start = `r=$(${NODE_INSIDE} --v8-pool-size=1 ${FORWARDER_INSIDE} 3>&1 >/dev/null </dev/null &)`;
  return ['/bin/sh', '-c', `${start}; [ "$r" = ready ] || exit 125; exec /bin/sh -c "$1"`, 'sh', command];
}

/** The variables that point installers at the forwarder. Loopback stays direct: it is the sandbox's own. */
export function egressEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [
    'HTTP_PROXY',
    'HTTPS_PROXY',
    'http_proxy',
    'https_proxy',
    'npm_config_proxy',
    'npm_config_https_proxy',
    'YARN_HTTP_PROXY',
    'YARN_HTTPS_PROXY',
    'CARGO_HTTP_PROXY',
    'PIP_PROXY',
  ])
    env[name] = EGRESS_PROXY_URL;
  env.NO_PROXY = env.no_proxy = 'localhost,127.0.0.1,::1';
  return env;
}
