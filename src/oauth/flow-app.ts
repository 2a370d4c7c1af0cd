import { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { AppContext, AppEnv } from '../http/context.ts';
import { createAuthorizeApp } from './authorize/authorize.ts';
import type { AuthorizePages } from './authorize/authorize-pages.ts';
import { createIntrospectApp } from './token/introspect.ts';
import { createRevokeApp } from './token/revoke.ts';
import { createTokenApp } from './token/token.ts';
import { createUserInfoApp } from './token/userinfo.ts';

/**
 * The authorization flow: /oauth/authorize (its pages passed in from web/), the token, UserInfo,
 * revocation and introspection endpoints. Mounted by one line in app.ts; sign-in is web/login.ts.
 */
export function createOAuthFlowApp(ctx: AppContext, pages: AuthorizePages): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Browser-based clients (e.g. MCP inspectors) call these cross-origin. They take no cookies,
  // only form credentials and bearer tokens, so any origin may; login and consent stay same-origin.
  const apiCors = cors({
    origin: '*',
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['Authorization', 'Content-Type'],
    exposeHeaders: ['WWW-Authenticate'],
    maxAge: 86_400,
  });
  for (const path of [
    '/api/oauth/token',
    '/api/oauth/userinfo',
    '/api/oauth/revoke',
    '/api/oauth/introspect',
  ]) {
    app.use(path, apiCors);
  }
  app.route('/', createAuthorizeApp(ctx, pages));
  app.route('/', createTokenApp(ctx));
  app.route('/', createUserInfoApp(ctx));
  app.route('/', createRevokeApp(ctx));
  app.route('/', createIntrospectApp(ctx));
  return app;
}
