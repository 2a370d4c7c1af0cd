/**
 * The signed-in areas' guard in throwing form: a missing session throws a PageRedirect to
 * `/login`, a forged or stale form throws a PageRefusal, and the area's `onError`
 * (`pageRefusalHandler`) answers both. `signedInArea` does it once for a whole sub-app: it sets the
 * typed `viewer` and, on a POST, checks the CSRF token before any handler runs.
 */
import type { Context, ErrorHandler, MiddlewareHandler } from 'hono';
import { html } from 'hono/html';
import { findUserById } from '../../domain/school/users.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { CSRF_FIELD, csrfToken, currentSession, verifyCsrf } from '../../http/sessions.ts';
import { isFormRequest } from '../../oauth/form-body.ts';
import { type Html, sendPage } from '../layout.ts';
import type { Viewer } from './page-kit.ts';
import { PageRedirect, PageRefusal, type RefusalLink, refusals } from './refusal.ts';

/** The fields of a multipart/form-data POST: text values and uploaded files. */
type MultipartForm = Record<string, string | File>;

/** What `signedInArea` puts on the context of every request of its area. */
interface ViewerVariables {
  /** The person signed in. */
  viewer: Viewer;
  /** A POST's fields, its CSRF token already checked; empty on other methods. */
  form: URLSearchParams;
  /** A multipart POST's fields and files, its CSRF token already checked; empty otherwise. */
  multipart: MultipartForm;
}

/** The Hono environment of a signed-in area. */
export interface ViewerEnv {
  Variables: AppEnv['Variables'] & ViewerVariables;
}

/**
 * The signed-in viewer; without one, throws a redirect to `/login` that comes back here after
 * sign-in (only GET pages come back: a POST's target is not a page to return to, so `fallback`).
 * @public for any signed-in page; `signedInArea` does it for a whole sub-app.
 */
export async function signedInViewer(ctx: AppContext, c: Context, fallback: string): Promise<Viewer> {
  const session = await currentSession(ctx, c);
  const user = session ? await findUserById(ctx.db, session.userId) : undefined;
  if (!session || !user) {
    const get = c.req.method === 'GET';
    const url = new URL(c.req.url);
    const back = get ? `${url.pathname}${url.search}` : fallback;
    throw new PageRedirect(`/login?return_to=${encodeURIComponent(back)}`, get ? 302 : 303);
  }
  return { session, user, csrf: csrfToken(ctx, c, session) };
}

/**
 * A POSTed web form of this viewer, or a thrown refusal: every state change is a form POST
 * carrying the session's synchronizer token (OWASP CSRF cheat sheet), so a forged cross-site
 * POST fails.
 * @public for any signed-in page; `signedInArea` does it for a whole sub-app.
 */
export async function postedForm(ctx: AppContext, c: Context, viewer: Viewer): Promise<URLSearchParams> {
  if (!isFormRequest(c)) throw refusals.unsupportedForm();
  const form = new URLSearchParams(await c.req.text());
  if (!verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined, viewer.session)) throw refusals.formExpired();
  return form;
}

/**
 * A POSTed multipart/form-data form (a file upload) of this viewer, or a thrown refusal.
 * @public for any signed-in page; `signedInArea` does it for a whole sub-app.
 */
export async function postedMultipartForm(
  ctx: AppContext,
  c: Context,
  viewer: Viewer,
): Promise<MultipartForm> {
  if (!/^multipart\/form-data\s*;\s*boundary=/i.test(c.req.header('content-type') ?? '')) {
    throw refusals.unsupportedForm(true);
  }
  let form: MultipartForm;
  try {
    form = (await c.req.parseBody()) as MultipartForm;
  } catch (cause) {
    throw Object.assign(refusals.formNotReadable(), { cause });
  }
  const token = form[CSRF_FIELD];
  if (!verifyCsrf(ctx, c, typeof token === 'string' ? token : undefined, viewer.session)) {
    throw refusals.formExpired();
  }
  return form;
}

/** The text fields of a multipart form. */
function textFields(form: MultipartForm): URLSearchParams {
  const fields = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) if (typeof value === 'string') fields.set(name, value);
  return fields;
}

/**
 * The middleware of a signed-in area: sets `viewer`, and on a POST reads the form (web form or
 * multipart) and checks its CSRF token once, for every handler of the area. `fallback` is where
 * a POST without a session returns to after sign-in.
 */
export function signedInArea(ctx: AppContext, fallback: string): MiddlewareHandler<ViewerEnv> {
  return async (c, next) => {
    const viewer = await signedInViewer(ctx, c, fallback);
    c.set('viewer', viewer);
    c.set('form', new URLSearchParams());
    c.set('multipart', {});
    if (c.req.method === 'POST') {
      if (/^multipart\/form-data/i.test(c.req.header('content-type') ?? '')) {
        const multipart = await postedMultipartForm(ctx, c, viewer);
        c.set('multipart', multipart);
        c.set('form', textFields(multipart));
      } else {
        c.set('form', await postedForm(ctx, c, viewer));
      }
    }
    await next();
  };
}

/** The Hono environment of a page area open to everyone (sign-in, recovery, invitations). */
export interface FormEnv {
  Variables: AppEnv['Variables'] & { form: URLSearchParams };
}

/**
 * A web form POSTed by a browser that may have no session, or a thrown refusal: its token is the
 * signed double-submit of the `lectern_csrf` cookie, or of the session when there is one
 * (`session`); OWASP CSRF cheat sheet.
 */
async function postedAnonymousForm(
  ctx: AppContext,
  c: Context,
  session?: Viewer['session'],
): Promise<URLSearchParams> {
  if (!isFormRequest(c)) throw refusals.unsupportedForm();
  const form = new URLSearchParams(await c.req.text());
  if (!verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined, session)) throw refusals.formExpired();
  return form;
}

/**
 * The middleware of an area open to everyone: on a POST, reads the web form and checks its CSRF
 * token once (`c.var.form`; empty on other methods).
 */
export function anonymousForms(ctx: AppContext): MiddlewareHandler<FormEnv> {
  return async (c, next) => {
    c.set('form', c.req.method === 'POST' ? await postedAnonymousForm(ctx, c) : new URLSearchParams());
    await next();
  };
}

/**
 * An area's `onError`: a thrown PageRedirect is answered with its redirect, a PageRefusal with
 * `render` (the area's chrome), and anything else goes on to the app's error handler.
 */
export function pageRefusalHandler<E extends AppEnv>(
  render: (c: Context<E>, refusal: PageRefusal) => Response | Promise<Response>,
): ErrorHandler<E> {
  return (err, c) => {
    if (err instanceof PageRedirect) return c.redirect(err.location, err.status);
    if (err instanceof PageRefusal) return render(c, err);
    throw err;
  };
}

/**
 * A refusal as a plain page (no area chrome): its title, its sentence, its links or `fallback`
 * when it has none, and its headers.
 */
export function sendRefusalPage(
  c: Context,
  refusal: PageRefusal,
  fallback: RefusalLink,
  options: { wide?: boolean; nav?: Html } = {},
): Promise<Response> {
  const links = refusal.links.length > 0 ? refusal.links : [fallback];
  const body = html`${options.nav ?? ''}<h1>${refusal.title}</h1>
<div class="notice error" role="alert"><p>${refusal.detail}</p></div>
${links.map((l) => html`<p><a href="${l.href}">${l.label}</a></p>`)}`;
  return sendPage(c, refusal.status, refusal.title, body, {
    formAction: ["'self'"],
    headers: { ...refusal.headers },
    wide: options.wide,
  });
}
