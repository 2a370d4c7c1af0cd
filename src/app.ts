import { Hono } from 'hono';
import { createAccountApp } from './account/routes.ts';
import { createStripeWebhookApp } from './admin/payments-webhook.ts';
import { createAdminApp } from './admin/rest.ts';
import { createErrorHandler, problemResponse } from './errors/handler.ts';
import { problems } from './errors/problem-error.ts';
import { createHealthApp } from './health/routes.ts';
import type { UploadPath } from './http/body-limit.ts';
import type { AppContext, AppEnv } from './http/context.ts';
import { mountRequestEnvelope } from './http/envelope.ts';
import { createMcpApp, type McpAppOptions } from './mcp/routes.ts';
import { createOAuthFlowApp } from './oauth/flow-app.ts';
import { createOAuthMetadataApp } from './oauth/metadata/metadata-app.ts';
import { authorizePages } from './web/consent.ts';
import { notFoundPage, wantsPage } from './web/landing.ts';
import { createPagesApp, SELF_LIMITED_PATHS } from './web/pages.ts';

/** Where files are uploaded, so the upload limit applies: the storage API. */
const UPLOAD_PATHS: readonly UploadPath[] = ['/api/v1/storage'];

/** Composes the feature sub-apps into the one Lectern app; nothing else happens here. */
export function createApp(ctx: AppContext, options: { mcp?: McpAppOptions } = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Clock, request id, event scope, metrics, access log and default headers in one frame, then
  // the body limits: all that every request passes before its route (http/envelope.ts).
  mountRequestEnvelope(app, ctx, UPLOAD_PATHS, SELF_LIMITED_PATHS);

  app.route('/', createHealthApp(ctx));
  app.route('/', createAccountApp(ctx));
  app.route('/', createMcpApp(ctx, options.mcp));
  app.route('/', createStripeWebhookApp(ctx));
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
