import { createServer, type Server } from 'node:http';
import { InputError } from '../core/errors.js';
import type { SlopgateMetrics } from './metrics.js';

/**
 * `/metrics` on a port of its own (SLOPGATE_METRICS_PORT, bound to SLOPGATE_METRICS_HOST, default
 * 127.0.0.1): for `slopgate worker` processes, which serve no webhooks, and for an App whose scraper
 * should not need the dashboard's token. Unprotected by design: bind it where only the scraper reaches.
 */
export async function serveMetricsPort(metrics: SlopgateMetrics, env: NodeJS.ProcessEnv = process.env): Promise<Server | null> {
  const raw = env.SLOPGATE_METRICS_PORT?.trim();
  if (!raw) return null;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InputError(`SLOPGATE_METRICS_PORT must be a port number, got '${raw}'`);
  const host = env.SLOPGATE_METRICS_HOST?.trim() || '127.0.0.1';
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    metrics.text().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  server.unref();
  return server;
}
