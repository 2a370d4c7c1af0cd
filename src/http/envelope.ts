import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { runInEventScope } from '../events/context.ts';
import { type Clock, withClock } from '../store/time.ts';
import { accessLogRecorder } from './access-log.ts';
import type { AppEnv } from './context.ts';
import { applyDefaultHeaders } from './default-headers.ts';
import { type Metrics, requestRecorder } from './metrics.ts';

const REQUEST_ID_HEADER = 'X-Request-Id';
const MAX_REQUEST_ID = 128;
// The characters hono's requestId middleware accepts in a caller's id; anything else gets a fresh one.
const FOREIGN_ID = /[^\w\-=]/;

/**
 * What every request pays for, in one middleware frame instead of five: the app's clock bound
 * for the whole request (store/time.ts), the request id (the caller's `X-Request-Id` if short
 * and plain, else a fresh UUID; echoed on the response), one duration measured for both the
 * metrics and the access log, the request's event scope (events/context.ts), and the default
 * headers on the finished response. Each piece is
 * still defined in its own module; this only saves the per-middleware dispatch and the second
 * clock read, which were a third of `/healthz`'s cost (docs/performance.md, issue #14).
 */
export function requestEnvelope(ctx: {
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
}): MiddlewareHandler<AppEnv> {
  const log = accessLogRecorder(ctx.logger);
  const record = requestRecorder(ctx.metrics);
  return (c, next) =>
    withClock(ctx.clock, async () => {
      const start = performance.now();
      let id = c.req.header(REQUEST_ID_HEADER);
      if (!id || id.length > MAX_REQUEST_ID || FOREIGN_ID.test(id)) id = crypto.randomUUID();
      c.set('requestId', id);
      // Every domain event the request causes carries its id, and its actor once identified.
      await runInEventScope(id, next);
      const elapsedMs = performance.now() - start;
      record(c, elapsedMs);
      log(c, elapsedMs);
      applyDefaultHeaders(c, [REQUEST_ID_HEADER, id]);
    });
}
