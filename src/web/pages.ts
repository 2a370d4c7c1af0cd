import { Hono } from 'hono';
import type { UploadPath } from '../http/body-limit.ts';
import type { AppContext, AppEnv } from '../http/context.ts';
import { createAccountArea } from './account/area.ts';
import { CONSOLE_PREFIX, createConsoleApp } from './admin/console-app.ts';
import { createAgentDocsApp } from './agent-docs.ts';
import { createInvitationArea } from './invitations.ts';
import { createLandingApp } from './landing.ts';
import { createLearnPagesApp, LEARN_PREFIX } from './learn/routes.ts';
import { createLoginApp } from './login.ts';
import { createRecoveryArea } from './recovery/password-reset.ts';
import { publicPageCache } from './shared/page-cache.ts';
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
  app.route('/password-reset', createRecoveryArea(ctx));
  app.route(CONSOLE_PREFIX, createConsoleApp(ctx));
  app.route('/account', createAccountArea(ctx));
  app.route('/', createAgentDocsApp(ctx));
  app.route('/invitations', createInvitationArea(ctx));
  app.route(LEARN_PREFIX, createLearnPagesApp(ctx));
  app.use('/schools/*', publicPageCache(ctx));
  app.route('/schools/:subdomain/', createSchoolSiteApp(ctx));
  app.route('/', createLandingApp(ctx));
  return app;
}
