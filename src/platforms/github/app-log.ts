import { getTransformStream } from '@probot/pino';
import { pino, type Logger } from 'pino';

/** Request and response headers that carry credentials: never logged (the dashboard's token and session). */
const SECRET_HEADERS = ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'];

/**
 * The App server's logger: Probot's own (the same format options, LOG_FORMAT, LOG_LEVEL, …) with the
 * credential headers redacted. Probot's HTTP logger writes every request's headers; since the dashboard
 * and /metrics share the webhooks' port, an operator token or a session cookie would otherwise reach
 * the log.
 */
export async function appServerLog(env: NodeJS.ProcessEnv = process.env): Promise<Logger> {
  const format = env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'pretty' ? env.LOG_FORMAT : undefined;
  const transform = await getTransformStream({
    ...(format ? { logFormat: format } : {}),
    logLevelInString: env.LOG_LEVEL_IN_STRING === 'true',
    ...(env.SENTRY_DSN ? { sentryDsn: env.SENTRY_DSN } : {}),
  });
  transform.pipe(process.stdout);
  return pino(
    {
      level: env.LOG_LEVEL || 'info',
      name: 'probot',
      messageKey: env.LOG_MESSAGE_KEY || 'msg',
      redact: { paths: SECRET_HEADERS, censor: '[redacted]' },
    },
    transform,
  );
}
