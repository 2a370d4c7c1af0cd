import { Hono } from 'hono';
import type { UploadPath } from '../http/body-limit.ts';
import type { AppContext, AppEnv } from '../http/context.ts';
import { createAccountPagesApp } from './account/routes.ts';
import { createAccountSettingsApp } from './account/settings.ts';
import { CONSOLE_PREFIX, createConsoleApp } from './admin/console-app.ts';
import { createAgentDocsApp } from './agent-docs.ts';
import { createInvitationPagesApp } from './invitations.ts';
import { createLandingApp } from './landing.ts';
import { createLearnPagesApp } from './learn/routes.ts';
import { createLoginApp } from './login.ts';
import { createPasswordResetApp } from './recovery/password-reset.ts';
import { createSchoolSiteApp } from './site/routes.ts';

/**
 * The pages that cap their own request bodies (the console: its upload forms to the upload
 * limit, the rest to the body limit, admin/console-env.ts), so their 413 is their own page.
 */
export const SELF_LIMITED_PATHS: readonly UploadPath[] = [`${CONSOLE_PREFIX}/`];

/**
 * Every page for people and the documents for agents: the front page (`/`), sign-in (`/login`,
 * `/logout`), the console (`/admin/…`, operators and lecturers), the account pages (`/account`),
 * each school's site and learning area (`/schools/<subdomain>/…`), and `/auth.md`, `/llms.txt`.
 * Mounted by one line in app.ts.
 */
export function createPagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.route('/', createLoginApp(ctx));
  app.route('/', createPasswordResetApp(ctx));
  app.route(CONSOLE_PREFIX, createConsoleApp(ctx));
  app.route('/', createAccountPagesApp(ctx));
  app.route('/', createAccountSettingsApp(ctx));
  app.route('/', createAgentDocsApp(ctx));
  app.route('/', createInvitationPagesApp(ctx));
  app.route('/', createLearnPagesApp(ctx));
  app.route('/', createSchoolSiteApp(ctx));
  app.route('/', createLandingApp(ctx));
  return app;
}
