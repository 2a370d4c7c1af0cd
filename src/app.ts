import { Hono } from 'hono';
import { requestId } from 'hono/request-id';
import { createAccountApp } from './account/routes.ts';
import { createAdminApp } from './admin/rest.ts';
import { createErrorHandler, problemResponse } from './errors/handler.ts';
import { problems } from './errors/problem-error.ts';
import { createHealthApp } from './health/routes.ts';
import { accessLog } from './http/access-log.ts';
import { bodyLimits } from './http/body-limit.ts';
import type { AppContext, AppEnv } from './http/context.ts';
import { defaultHeaders } from './http/default-headers.ts';
import { eventScope } from './http/event-scope.ts';
import { metricsMiddleware } from './http/metrics.ts';
import { createMcpApp } from './mcp/routes.ts';
import { createOAuthFlowApp } from './oauth/flow-app.ts';
import { createOAuthMetadataApp } from './oauth/metadata-app.ts';
import { withClock } from './store/time.ts';
import { authorizePages } from './web/consent.ts';
import { notFoundPage, wantsPage } from './web/landing.ts';
import { createPagesApp } from './web/pages.ts';

const UPLOAD_PREFIXES = ['/api/v1/storage'];

/** Composes the feature sub-apps into the one Lectern app; nothing else happens here. */
export function createApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Every request runs on the app's clock (store/time.ts), whatever it reads the time through.
  app.use('*', (_c, next) => withClock(ctx.clock, next));
  app.use('*', requestId({ limitLength: 128 }));
  app.use('*', accessLog(ctx.logger));
  app.use('*', eventScope());
  app.use('*', metricsMiddleware(ctx.metrics));
  app.use('*', defaultHeaders());
  app.use('*', bodyLimits(ctx.config.bodyLimitBytes, ctx.config.uploadLimitBytes, UPLOAD_PREFIXES));

  app.route('/', createHealthApp(ctx));
  app.route('/', createAccountApp(ctx));
  app.route('/', createMcpApp(ctx));
  app.route('/', createAdminApp(ctx));
  app.route('/', createOAuthFlowApp(ctx, authorizePages));
  app.route('/', createOAuthMetadataApp(ctx));
  app.route('/', createPagesApp(ctx));

  // Browsers get a page; API clients (any Accept not preferring HTML) the problem+json 404.
  app.notFound((c) =>
    wantsPage(c)
      ? notFoundPage(c)
      : problemResponse(c, problems.notFound(`No route for ${c.req.method} ${c.req.path}.`)),
  );
  app.onError(createErrorHandler(ctx.logger));
  return app;
}
