/**
 * The operator console (`/admin`): one sub-app whose frame every request passes (the console's
 * body limits, the signed-in viewer, the CSRF check of every POST), whose routes each admit the
 * school's operators or its staff, and whose `onError` renders what a handler throws as a console
 * page. Mounted by one line in web/pages.ts.
 */
import { Hono } from 'hono';
import type { AppContext } from '../../http/context.ts';
import { analyticsRoutes } from './analytics-pages.ts';
import { appRoutes } from './app-pages.ts';
import { auditRoutes } from './audit-pages.ts';
import { generatedRoutes } from './console/routes.ts';
import { type ConsoleEnv, consoleBodyLimits, consoleFrame } from './console-env.ts';
import { consoleOnError } from './console-errors.ts';
import { courseStudentsRoutes } from './course-students.ts';
import { curriculumRoutes } from './curriculum-pages.ts';
import { webhookRoutes } from './events-routes.ts';
import { fileRoutes } from './files-pages.ts';
import { lockoutRoutes } from './lockouts.ts';
import { memberRoutes } from './members-pages.ts';
import { orderRoutes } from './orders-pages.ts';
import { settingsRoutes } from './routes.ts';

/** Where the console is mounted. */
export const CONSOLE_PREFIX = '/admin';

/** The console, to be mounted at CONSOLE_PREFIX. */
export function createConsoleApp(ctx: AppContext): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.onError(consoleOnError);
  app.use('*', consoleBodyLimits(ctx));
  app.use('*', consoleFrame(ctx));
  app.route('/', settingsRoutes());
  app.route('/', appRoutes());
  app.route('/', lockoutRoutes());
  app.route('/', memberRoutes());
  app.route('/', webhookRoutes());
  app.route('/', auditRoutes());
  app.route('/', curriculumRoutes());
  app.route('/', courseStudentsRoutes());
  app.route('/', fileRoutes());
  app.route('/', generatedRoutes());
  app.route('/', analyticsRoutes());
  app.route('/', orderRoutes());
  return app;
}
