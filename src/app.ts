import { Hono } from 'hono';
import { createAccountApp } from './account/routes.ts';
import { createStripeWebhookApp } from './admin/payments-webhook.ts';
import { createAdminApp } from './admin/rest.ts';
import { createErrorHandler, problemResponse } from './errors/handler.ts';
import { ProblemError, problems } from './errors/problem-error.ts';
import { createHealthApp } from './health/routes.ts';
import { isUploadPath, type UploadPath } from './http/body-limit.ts';
import type { AppContext, AppEnv } from './http/context.ts';
import { mountRequestEnvelope } from './http/envelope.ts';
import { createMcpApp, type McpAppOptions } from './mcp/routes.ts';
import { createOAuthFlowApp } from './oauth/flow-app.ts';
import { createOAuthMetadataApp } from './oauth/metadata/metadata-app.ts';
import { tooLargePage } from './web/admin/files-pages.ts';
import { authorizePages } from './web/consent.ts';
import { notFoundPage, wantsPage } from './web/landing.ts';
import { createPagesApp } from './web/pages.ts';

/**
 * Where files are uploaded, so the upload limit applies: the storage API, the console's files
 * page, and the curriculum editor's two multipart lecture forms (new lecture, lecture edit: a
 * lecture's video or file is uploaded with its form). The editor's other forms are url-encoded
 * and keep the body limit.
 */
const UPLOAD_PATHS: readonly UploadPath[] = [
  '/api/v1/storage',
  /^\/admin\/[^/]+\/files$/,
  /^\/admin\/[^/]+\/courses\/[^/]+\/curriculum\/sections\/[^/]+\/lectures$/,
  /^\/admin\/[^/]+\/courses\/[^/]+\/curriculum\/lectures\/[^/]+\/edit$/,
];

/** Composes the feature sub-apps into the one Lectern app; nothing else happens here. */
export function createApp(ctx: AppContext, options: { mcp?: McpAppOptions } = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Clock, request id, event scope, metrics, access log and default headers in one frame, then
  // the body limits: all that every request passes before its route (http/envelope.ts).
  mountRequestEnvelope(app, ctx, UPLOAD_PATHS);

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
  const onError = createErrorHandler(ctx.logger);
  // A console form over the body limit (an upload) is refused before any route: browsers get a
  // page saying what to do instead of the problem document.
  app.onError((err, c) =>
    err instanceof ProblemError && err.status === 413 && c.req.path.startsWith('/admin/') && wantsPage(c)
      ? tooLargePage(
          c,
          isUploadPath(UPLOAD_PATHS, c.req.path) ? ctx.config.uploadLimitBytes : ctx.config.bodyLimitBytes,
        )
      : onError(err, c),
  );
  return app;
}
