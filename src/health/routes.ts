import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { sql } from 'kysely';
import { problemResponse } from '../errors/handler.ts';
import { problem } from '../errors/problem-error.ts';
import type { AppContext, AppEnv } from '../http/context.ts';

// RFC 6750 §2.1 credentials, the same grammar the resource verifier reads.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether `authorization` carries the metrics token: compared as SHA-256 digests with
 * timingSafeEqual, so neither the token's bytes nor its length leak through timing.
 * Returns 'missing' when no Bearer credentials were sent at all (no header, another scheme).
 */
function checkMetricsToken(authorization: string | undefined, token: string): 'ok' | 'missing' | 'invalid' {
  if (authorization === undefined || !/^Bearer +\S/i.test(authorization)) return 'missing';
  const match = BEARER.exec(authorization);
  return match && timingSafeEqual(digest(match[1]), digest(token)) ? 'ok' : 'invalid';
}

/**
 * Liveness (`/healthz`), readiness (`/readyz`: the database answers) and `/metrics`. With
 * `REDIS_URL`, readiness also reports Redis, but stays 200 when only Redis is down: the rate limits
 * then fail open and every request is still served, so taking instances out of the
 * load balancer would turn a degraded service into an outage.
 */
export function createHealthApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/healthz', (c) => c.json({ status: 'ok' }, 200, { 'Cache-Control': 'no-store' }));
  app.get('/readyz', async (c) => {
    try {
      await sql`select 1`.execute(ctx.db);
      const redis = await ctx.redis?.check();
      const body =
        redis === undefined
          ? { status: 'ok', database: 'ok' }
          : redis === 'up'
            ? { status: 'ok', database: 'ok', redis: 'ok' }
            : {
                status: 'degraded',
                database: 'ok',
                redis: 'unreachable',
                detail: 'Redis is unreachable.',
              };
      return c.json(body, 200, { 'Cache-Control': 'no-store' });
    } catch (err) {
      ctx.logger.warn({ err, requestId: c.get('requestId') }, 'readiness check failed');
      return c.json(
        {
          type: 'about:blank',
          title: 'Service Unavailable',
          status: 503,
          code: 'database_unavailable',
          detail: 'The database is not reachable.',
        },
        503,
        { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' },
      );
    }
  });
  const token = ctx.config.metricsToken;
  if (token === undefined && ctx.config.env === 'production') {
    // Decided open-with-a-warning (docs/decisions.md): route templates and counts only.
    ctx.logger.warn('/metrics is open to anyone: set METRICS_TOKEN to require a bearer token');
  }
  app.get('/metrics', async (c) => {
    if (token !== undefined) {
      const verdict = checkMetricsToken(c.req.header('authorization'), token);
      if (verdict !== 'ok') {
        // RFC 6750 §3: a challenge always; error="invalid_token" only when a token was sent (§3.1).
        const challenge = `Bearer realm="metrics"${verdict === 'invalid' ? ', error="invalid_token"' : ''}`;
        return problemResponse(
          c,
          problem('unauthorized', {
            detail: 'The metrics need Authorization: Bearer <METRICS_TOKEN>.',
            headers: { 'WWW-Authenticate': challenge, 'Cache-Control': 'no-store' },
          }),
        );
      }
    }
    return c.body(await ctx.metrics.registry.metrics(), 200, {
      'Content-Type': ctx.metrics.registry.contentType,
    });
  });
  return app;
}
