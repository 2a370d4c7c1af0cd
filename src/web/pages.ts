import { Hono } from 'hono';
import type { AppContext, AppEnv } from '../http/context.ts';
import { createAccountArea } from './account/area.ts';
import { createAnalyticsPagesApp } from './admin/analytics-pages.ts';
import { createConsolePagesApp } from './admin/console/routes.ts';
import { createCourseStudentsApp } from './admin/course-students.ts';
import { createCurriculumPagesApp } from './admin/curriculum-pages.ts';
import { createAdminEventsPagesApp } from './admin/events-routes.ts';
import { createFilesPagesApp } from './admin/files-pages.ts';
import { createAdminLockoutsApp } from './admin/lockouts.ts';
import { createMemberPagesApp } from './admin/members-pages.ts';
import { createOrdersPagesApp } from './admin/orders-pages.ts';
import { createAdminPagesApp } from './admin/routes.ts';
import { createAgentDocsApp } from './agent-docs.ts';
import { createInvitationArea } from './invitations.ts';
import { createLandingApp } from './landing.ts';
import { createLearnPagesApp, LEARN_PREFIX } from './learn/routes.ts';
import { createLoginApp } from './login.ts';
import { createRecoveryArea } from './recovery/password-reset.ts';
import { publicPageCache } from './shared/page-cache.ts';
import { createSchoolSiteApp } from './site/routes.ts';

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
  app.route('/', createAdminPagesApp(ctx));
  app.route('/', createAdminLockoutsApp(ctx));
  app.route('/', createMemberPagesApp(ctx));
  app.route('/', createAdminEventsPagesApp(ctx));
  app.route('/', createCurriculumPagesApp(ctx));
  app.route('/', createCourseStudentsApp(ctx));
  app.route('/', createFilesPagesApp(ctx));
  app.route('/', createConsolePagesApp(ctx));
  app.route('/', createAnalyticsPagesApp(ctx));
  app.route('/', createOrdersPagesApp(ctx));
  app.route('/account', createAccountArea(ctx));
  app.route('/', createAgentDocsApp(ctx));
  app.route('/invitations', createInvitationArea(ctx));
  app.route(LEARN_PREFIX, createLearnPagesApp(ctx));
  app.use('/schools/*', publicPageCache(ctx));
  app.route('/schools/:subdomain/', createSchoolSiteApp(ctx));
  app.route('/', createLandingApp(ctx));
  return app;
}
