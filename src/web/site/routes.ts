/**
 * A school's public site at `/schools/<subdomain>/…` (product.md §10): its home page's blocks in
 * its theme, the catalogue of published courses, course pages with their outline, free previews
 * and the way in (enrol in a free course, the school's own checkout for a paid one), upcoming
 * public events, published posts and pages, public forms, and sign-up. One sub-app, mounted at
 * `/schools/:subdomain/` by one line in pages.ts (the learning area under `…/learn` is its own):
 * its first step opens the site, each POST route's first step checks the form, and its `onError`
 * renders a thrown refusal in the school's colours.
 */
import type { Context, ErrorHandler } from 'hono';
import { Hono } from 'hono';
import type { AppContext } from '../../http/context.ts';
import { PageRedirect, PageRefusal } from '../shared/refusal.ts';
import { showEvents, showLogo, showPage, showPageImage, showPost, showPosts } from './community-pages.ts';
import { checkFormStep, openSiteStep, type SiteContext, type SiteEnv } from './context.ts';
import { showCatalogue, showCourse, showHome, showPreview } from './course-pages.ts';
import { enrolInCourse } from './enrol.ts';
import { sendForm, showForm } from './forms.ts';
import { sendBareRefusal, sendSiteRefusal } from './kit.ts';
import { showSignUp, submitSignUp } from './signup.ts';
import { confirmSignUp, showSignUpConfirmation, showSignUpConfirmed } from './signup-confirm.ts';

type Handler = (ctx: AppContext, c: SiteContext) => Promise<Response>;

/** Renders what a handler threw: a refusal in the school's chrome, a redirect; anything else on. */
function renderThrown(err: Error, c: Context<SiteEnv>): Promise<Response> | Response {
  if (err instanceof PageRedirect) return c.redirect(err.location, err.status);
  if (!(err instanceof PageRefusal)) throw err;
  const req = c.get('site');
  return req ? sendSiteRefusal(c, req, err) : sendBareRefusal(c, err);
}

/** The school's site, mounted by one line in pages.ts. */
export function createSchoolSiteApp(ctx: AppContext): Hono<SiteEnv> {
  const app = new Hono<SiteEnv>();
  const form = checkFormStep(ctx);
  const get = (path: string, handler: Handler) => app.get(path, (c) => handler(ctx, c));
  const post = (path: string, handler: Handler) => app.post(path, form, (c) => handler(ctx, c));

  app.use('*', openSiteStep(ctx));
  get('/', showHome);
  get('/courses', showCatalogue);
  get('/courses/:slug', showCourse);
  get('/courses/:slug/preview/:lectureId', showPreview);
  post('/courses/:slug/enroll', enrolInCourse);
  get('/events', showEvents);
  get('/posts', showPosts);
  get('/posts/:slug', showPost);
  get('/pages/:slug', showPage);
  get('/pages/:slug/images/:fileId', showPageImage);
  get('/logo', showLogo);
  get('/forms/:formId', showForm);
  post('/forms/:formId', sendForm);
  get('/signup', showSignUp);
  post('/signup', submitSignUp);
  get('/signup/confirm', showSignUpConfirmation);
  post('/signup/confirm', confirmSignUp);
  get('/signup/confirmed', showSignUpConfirmed);
  app.onError(renderThrown as ErrorHandler<SiteEnv>);
  return app;
}
