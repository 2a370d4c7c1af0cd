/**
 * The school site's typed request context and the steps its requests take before their handlers:
 * open the site of the path's subdomain (with the visitor), and for a POST read the form and check
 * it came from this site, one check for every form of the site.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { CSRF_FIELD, verifyCsrf } from '../../http/sessions.ts';
import { isFormRequest } from '../../oauth/form-body.ts';
import { refusals } from '../shared/refusal.ts';
import { openSite, type SiteRequest } from './kit.ts';
import { FORM_TOKEN_FIELD, verifySigned } from './signing.ts';

/** The site's Hono environment: the app's variables plus the open site and the posted form. */
export interface SiteEnv {
  Variables: AppEnv['Variables'] & {
    /** The school of the path and the visitor, set before every handler. */
    site: SiteRequest;
    /** A POST's form fields, read and checked before its handler. */
    form: URLSearchParams;
  };
}

/** A request of the school site. */
export type SiteContext = Context<SiteEnv>;

/** The learning area (`/schools/<subdomain>/learn…`) is its own sub-app: the site's steps skip it. */
function inLearningArea(c: Context): boolean {
  const prefix = `/schools/${c.req.param('subdomain') ?? ''}/learn`;
  return c.req.path === prefix || c.req.path.startsWith(`${prefix}/`);
}

/**
 * Opens the site for the handler (`c.get('site')`); an unknown school is a refusal. The bare
 * `/schools/<subdomain>` is the home page's address without its slash: it redirects there.
 */
export function openSiteStep(ctx: AppContext): MiddlewareHandler<SiteEnv> {
  return async (c, next) => {
    if (inLearningArea(c)) return next();
    if (c.req.path === `/schools/${c.req.param('subdomain') ?? ''}`) {
      return c.redirect(`${c.req.path}/`, 301);
    }
    c.set('site', await openSite(ctx, c));
    await next();
  };
}

/** Where a refused form sends the person back to: the page the form was on. */
function formPage(req: SiteRequest, path: string): string {
  if (path.endsWith('/enroll')) return path.slice(0, -'/enroll'.length);
  if (path.endsWith('/signup/confirm')) return `${req.base}/`;
  return path;
}

/**
 * Every POST route of the site takes this step first: the body must be a web form that came from
 * this site (OWASP CSRF cheat sheet). A signed-in visitor's form carries the session's
 * synchronizer token; a signed-out visitor's, the signed double-submit token of its
 * `lectern_csrf` cookie; a public form, a token signed for the address it posts to (signing.ts),
 * so its page needs no cookie. Anything else is refused before the handler reads the form
 * (`c.get('form')`).
 */
export function checkFormStep(ctx: AppContext): MiddlewareHandler<SiteEnv> {
  return async (c, next) => {
    if (!isFormRequest(c)) throw refusals.unsupportedForm();
    const form = new URLSearchParams(await c.req.text());
    const req = c.get('site');
    const signed = form.get(FORM_TOKEN_FIELD);
    const genuine =
      signed !== null && !form.has(CSRF_FIELD)
        ? verifySigned(ctx, 'site-form', c.req.path, signed)
        : verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined, req.viewer?.session);
    if (!genuine)
      throw refusals.formExpired([{ href: formPage(req, c.req.path), label: 'Back to the page' }]);
    c.set('form', form);
    await next();
  };
}
