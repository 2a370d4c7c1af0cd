/**
 * The hello-world of hello-server.ts behind what every Lectern request passes before its route:
 * the request envelope and the body limits, mounted by the same function as `createApp`
 * (src/http/envelope.ts `mountRequestEnvelope`), with the metrics, logger and clock the runtime
 * builds. Nothing else of Lectern's (no database, no feature sub-app), so against the bare
 * hello-world it measures the envelope alone. LOG_LEVEL as Lectern's (info writes the access log).
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { loadConfig } from '../src/config.ts';
import type { AppEnv } from '../src/http/context.ts';
import { mountRequestEnvelope } from '../src/http/envelope.ts';
import { createLogger } from '../src/http/logger.ts';
import { createMetrics } from '../src/http/metrics.ts';
import { systemClock } from '../src/store/time.ts';

const config = loadConfig({ LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
const app = new Hono<AppEnv>();
// No upload paths: a GET never reaches the upload check.
mountRequestEnvelope(
  app,
  { clock: systemClock, logger: createLogger(config.logLevel), metrics: createMetrics(), config },
  [],
);
app.get('/', (c) => c.text('Hello, World!'));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.argv[2] ?? 0) }, (info) => {
  console.log(`listening ${info.port}`);
});
