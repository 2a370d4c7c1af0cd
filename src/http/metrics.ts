import type { Context, MiddlewareHandler } from 'hono';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** The app's Prometheus registry (one per app instance, so tests never collide). */
export interface Metrics {
  readonly registry: Registry;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route'>;
}

/** Creates the registry with process metrics and the HTTP request metrics. */
export function createMetrics(collectProcess = true): Metrics {
  const registry = new Registry();
  if (collectProcess) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'lectern_http_requests_total',
    help: 'HTTP requests by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'lectern_http_request_duration_seconds',
    help: 'HTTP request duration by route template',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return { registry, requests, duration };
}

/**
 * The route template that answered (`/api/v1/courses/:course_id`), read after the handler ran;
 * 'unmatched' when no route did. Metrics and the access log name routes the same way.
 */
export function routeTemplate(c: Context): string {
  return c.req.routePath || 'unmatched';
}

/** Counts requests by route template (never the raw path: ids would explode cardinality). */
export function metricsMiddleware(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    await next();
    const route = routeTemplate(c);
    metrics.requests.inc({ method: c.req.method, route, status: String(c.res.status) });
    metrics.duration.observe({ method: c.req.method, route }, (performance.now() - start) / 1000);
  };
}
