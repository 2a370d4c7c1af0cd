import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { freshEventScope } from '../events/context.ts';
import type { Clock } from '../store/time.ts';
import { runInWorkScope } from '../store/work-scope.ts';
import { accessLogRecorder } from './access-log.ts';
import type { AppEnv } from './context.ts';
import { applyDefaultHeaders } from './default-headers.ts';
import { type Metrics, requestRecorder } from './metrics.ts';

const REQUEST_ID_HEADER = 'X-Request-Id';
const MAX_REQUEST_ID = 128;
// The characters hono's requestId middleware accepts in a caller's id; anything else gets a fresh one.
const FOREIGN_ID = /[^\w\-=]/;

/**
 * What every request pays for, in one middleware frame instead of five: one work scope
 * (store/work-scope.ts) carrying both the app's clock (store/time.ts) and the request's event
 * scope (events/context.ts), the request id (the caller's `X-Request-Id` if short and plain,
 * else a fresh UUID; echoed on the response), one duration measured for both the metrics and
 * the access log, and the default headers on the finished response. Each piece is still defined
 * in its own module; this only saves the per-middleware dispatch, the second clock read and the
 * second AsyncLocalStorage scope (docs/performance.md).
 */
export function requestEnvelope(ctx: {
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
}): MiddlewareHandler<AppEnv> {
  const log = accessLogRecorder(ctx.logger);
  const record = requestRecorder(ctx.metrics);
  return async (c, next) => {
    const start = performance.now();
    let id = c.req.header(REQUEST_ID_HEADER);
    if (!id || id.length > MAX_REQUEST_ID || FOREIGN_ID.test(id)) id = crypto.randomUUID();
    c.set('requestId', id);
    // The clock for the whole request; every domain event it causes carries its id, and its
    // actor once identified.
    await runInWorkScope({ clock: ctx.clock, event: freshEventScope(id) }, next);
    const elapsedMs = performance.now() - start;
    record(c, elapsedMs);
    log(c, elapsedMs);
    applyDefaultHeaders(c, [REQUEST_ID_HEADER, id]);
  };
}
