import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { AppEnv } from './context.ts';
import { routeTemplate } from './metrics.ts';

/**
 * Records which client a request spoke for, once a bearer token or client authentication has
 * named it, so the access-log line can carry it. The id only: never the token or secret itself.
 */
export function noteClient(c: Context, clientId: string): void {
  (c as Context<AppEnv>).set('clientId', clientId);
}

/**
 * One JSON line per request, at info: method, route template (`/api/v1/courses/:course_id`,
 * never the raw path, so no id, code or token in a path or query ends up in the log), status,
 * duration in ms, request id and the client id when one was named. Nothing from the query
 * string, headers, cookies or body is read: what is not read cannot leak. The request envelope
 * (envelope.ts) calls it with the duration it measured once for the log and the metrics alike.
 */
export function accessLogRecorder(logger: Logger): (c: Context<AppEnv>, elapsedMs: number) => void {
  // The line's fields are fixed above and hold no credential, so this child skips pino's
  // redaction: its wildcard paths cost ~3× the rest of the line (docs/decisions.md),
  // and this runs on every request. Anything else logged keeps the parent's redaction.
  const log = logger.child({}, { redact: [] });
  return (c, elapsedMs) => {
    if (!log.isLevelEnabled('info')) return;
    const durationMs = Math.round(elapsedMs * 10) / 10;
    log.info(
      {
        method: c.req.method,
        route: routeTemplate(c),
        status: c.res.status,
        durationMs,
        requestId: c.get('requestId'),
        clientId: c.get('clientId'),
      },
      'request',
    );
  };
}
