import { Hono } from 'hono';
import type { AppContext, AppEnv } from '../http/context.ts';
import { createAccountPagesApp } from './account/routes.ts';
import { createAdminEventsPagesApp } from './admin/events-routes.ts';
import { createAdminPagesApp } from './admin/routes.ts';
import { createAgentDocsApp } from './agent-docs.ts';
import { createLoginApp } from './login.ts';

/**
 * Sign-in (`/login`, `/logout`), the signed-in pages (`/admin` for operators, `/account` for
 * everyone) and the agent documents (`/auth.md`, `/llms.txt`). Mounted by one line in app.ts.
 */
export function createPagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.route('/', createLoginApp(ctx));
  app.route('/', createAdminPagesApp(ctx));
  app.route('/', createAdminEventsPagesApp(ctx));
  app.route('/', createAccountPagesApp(ctx));
  app.route('/', createAgentDocsApp(ctx));
  return app;
}
