import type { Context } from 'hono';
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

/**
 * Records one finished request in the counter (by route template, never the raw path: ids
 * would explode cardinality) and the histogram. The labelled children are kept
 * per method, route and status: prom-client otherwise hashes the label object on every call,
 * which was most of this function's cost on `/healthz`. Route templates and statuses are few, so
 * the map stays as small as the metrics' own cardinality.
 */
export function requestRecorder(metrics: Metrics): (c: Context, elapsedMs: number) => void {
  type Children = { count: { inc(): void }; time: { observe(seconds: number): void } };
  const children = new Map<string, Children>();
  return (c, elapsedMs) => {
    const method = c.req.method;
    const route = routeTemplate(c);
    const status = c.res.status;
    const key = `${method} ${status} ${route}`;
    let child = children.get(key);
    if (!child) {
      child = {
        count: metrics.requests.labels({ method, route, status: String(status) }),
        time: metrics.duration.labels({ method, route }),
      };
      children.set(key, child);
    }
    child.count.inc();
    child.time.observe(elapsedMs / 1000);
  };
}
