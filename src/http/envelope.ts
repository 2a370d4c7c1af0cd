import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { freshEventScope } from '../events/context.ts';
import type { Clock } from '../store/time.ts';
import { runInWorkScope } from '../store/work-scope.ts';
import { accessLogRecorder } from './access-log.ts';
import { bodyLimits, type UploadPath } from './body-limit.ts';
import type { AppEnv } from './context.ts';
import { applyDefaultHeaders } from './default-headers.ts';
import { type Metrics, requestRecorder } from './metrics.ts';
import { securityLogSink } from './security-log.ts';

const REQUEST_ID_HEADER = 'X-Request-Id';
const MAX_REQUEST_ID = 128;
// The characters hono's requestId middleware accepts in a caller's id; anything else gets a fresh one.
const FOREIGN_ID = /[^\w\-=]/;

/**
 * The caller's `X-Request-Id`. Served by the Node adapter, it is read from Node's parsed headers
 * (duplicates joined, surrounding whitespace trimmed, as the adapter's own lookup gives it)
 * without building the adapter's request `Headers`; elsewhere from the web request.
 */
function callerRequestId(c: Context): string | undefined {
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  const value = incoming ? incoming.headers['x-request-id'] : c.req.header(REQUEST_ID_HEADER);
  return typeof value === 'string' ? value : undefined;
}

/**
 * What every request pays for, in one middleware frame instead of five: one work scope
 * (store/work-scope.ts) carrying both the app's clock (store/time.ts) and the request's event
 * scope (events/context.ts), the request id (the caller's `X-Request-Id` if short and plain,
 * else a fresh UUID; echoed on the response), one duration measured for both the metrics and
 * the access log, and the default headers on the finished response (on Node's response when the
 * Node adapter serves it, default-headers.ts). Each piece is still defined in its own module; this
 * only saves the per-middleware dispatch, the second clock read and the second AsyncLocalStorage
 * scope. The bench's `envelope` row measures this frame alone (docs/performance.md).
 */
export function requestEnvelope(ctx: {
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
}): MiddlewareHandler<AppEnv> {
  const log = accessLogRecorder(ctx.logger);
  const securityLog = securityLogSink(ctx.logger);
  const record = requestRecorder(ctx.metrics);
  return async (c, next) => {
    const start = performance.now();
    let id = callerRequestId(c);
    if (!id || id.length > MAX_REQUEST_ID || FOREIGN_ID.test(id)) id = crypto.randomUUID();
    c.set('requestId', id);
    // The clock for the whole request; every domain event it causes carries its id, and its
    // actor once identified.
    await runInWorkScope({ clock: ctx.clock, event: freshEventScope(id, securityLog) }, next);
    const elapsedMs = performance.now() - start;
    record(c, elapsedMs);
    log(c, elapsedMs);
    applyDefaultHeaders(c, [REQUEST_ID_HEADER, id]);
  };
}

/**
 * Mounts all that every request passes before its route, in order: the envelope, then the body
 * limits (body-limit.ts: `uploadLimitBytes` on `uploadPaths`, `bodyLimitBytes` elsewhere, none
 * on `ownLimits`, whose sub-app caps its own bodies).
 * `createApp` mounts it on the app, the bench's envelope row on a hello-world to measure it alone.
 */
export function mountRequestEnvelope(
  app: Hono<AppEnv>,
  ctx: {
    clock: Clock;
    logger: Logger;
    metrics: Metrics;
    config: Pick<Config, 'bodyLimitBytes' | 'uploadLimitBytes'>;
  },
  uploadPaths: readonly UploadPath[],
  ownLimits: readonly UploadPath[] = [],
): void {
  app.use('*', requestEnvelope(ctx));
  app.use('*', bodyLimits(ctx.config.bodyLimitBytes, ctx.config.uploadLimitBytes, uploadPaths, ownLimits));
}
