import { Hono } from 'hono';
import type { AppContext, AppEnv } from '../http/context.ts';
import { createAccountPagesApp } from './account/routes.ts';
import { createAccountSettingsApp } from './account/settings.ts';
import { createAdminEventsPagesApp } from './admin/events-routes.ts';
import { createAdminLockoutsApp } from './admin/lockouts.ts';
import { createMemberPagesApp } from './admin/members-pages.ts';
import { createAdminPagesApp } from './admin/routes.ts';
import { createAgentDocsApp } from './agent-docs.ts';
import { createInvitationPagesApp } from './invitations.ts';
import { createLandingApp } from './landing.ts';
import { createLoginApp } from './login.ts';
import { createPasswordResetApp } from './recovery/password-reset.ts';

/**
 * The front page (`/`), sign-in (`/login`, `/logout`), the signed-in pages (`/admin` for operators, `/account` for
 * everyone) and the agent documents (`/auth.md`, `/llms.txt`). Mounted by one line in app.ts.
 */
export function createPagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.route('/', createLoginApp(ctx));
  app.route('/', createPasswordResetApp(ctx));
  app.route('/', createAdminPagesApp(ctx));
  app.route('/', createAdminLockoutsApp(ctx));
  app.route('/', createMemberPagesApp(ctx));
  app.route('/', createAdminEventsPagesApp(ctx));
  app.route('/', createAccountPagesApp(ctx));
  app.route('/', createAccountSettingsApp(ctx));
  app.route('/', createAgentDocsApp(ctx));
  app.route('/', createInvitationPagesApp(ctx));
  app.route('/', createLandingApp(ctx));
  return app;
}
