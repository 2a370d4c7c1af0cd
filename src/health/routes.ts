import { Hono } from 'hono';
import { sql } from 'kysely';
import type { AppContext, AppEnv } from '../http/context.ts';

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
      ctx.logger.warn({ err }, 'readiness check failed');
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
  app.get('/metrics', async (c) =>
    c.body(await ctx.metrics.registry.metrics(), 200, { 'Content-Type': ctx.metrics.registry.contentType }),
  );
  return app;
}
