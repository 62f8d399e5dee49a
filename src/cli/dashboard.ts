import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DashboardAuth } from '../dashboard/auth.js';
import { SlopgateMetrics } from '../dashboard/metrics.js';
import { DASHBOARD_PATH, dashboardHandler } from '../dashboard/server.js';
import { openStore } from '../store/open-store.js';
import { cliStoreOptions } from './store-options.js';

export interface DashboardCommand {
  db: string;
  port: number;
  host: string;
  /** Resolves to stop the server (tests); default: SIGINT or SIGTERM. */
  until?: Promise<void>;
  /** Told the address once listening (tests). */
  listening?: (url: string, token: string) => void;
}

/**
 * `slopgate dashboard --db DIR`: the App's read-only dashboard over a CLI store (or any store), on a
 * port of its own. Access as in the App: the operator token (SLOPGATE_DASHBOARD_TOKEN, else a random
 * one printed here), as a bearer token or through the sign-in form.
 */
export async function runDashboard(cmd: DashboardCommand, write: (s: string) => void): Promise<number> {
  const store = await openStore(cliStoreOptions(cmd.db));
  const given = process.env.SLOPGATE_DASHBOARD_TOKEN?.trim();
  const token = given || randomBytes(18).toString('base64url');
  const handler = dashboardHandler({
    db: () => Promise.resolve(store.db),
    auth: new DashboardAuth({ token }),
    links: {},
    metrics: new SlopgateMetrics(),
  });
  const server = createServer((req, res) => {
    handler(req, res).then(
      (handled) => {
        if (handled) return;
        res.writeHead(302, { location: DASHBOARD_PATH }).end();
      },
      () => res.writeHead(500).end(),
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(cmd.port, cmd.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo; // listen() on a TCP port always gives an AddressInfo
    const url = `http://${cmd.host.includes(':') ? `[${cmd.host}]` : cmd.host}:${port}${DASHBOARD_PATH}`;
    write(`slopgate dashboard: ${url}\n`);
    write(
      given ? 'sign in with SLOPGATE_DASHBOARD_TOKEN\n' : `sign in with the token ${token} (set SLOPGATE_DASHBOARD_TOKEN to choose it)\n`,
    );
    cmd.listening?.(url, token);
    await (cmd.until ??
      new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      }));
    return 0;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await store.close();
  }
}
