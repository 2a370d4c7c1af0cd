/**
 * What every page of a school's site shares: the school from the path, the visitor (signed in
 * or not), the header with the school's name and navigation, the footer, the theme, and the 404
 * page that says where to go next.
 */
import type { Context } from 'hono';
import { html } from 'hono/html';
import { type PublicSite, publicSite } from '../../domain/catalog/public-catalogue.ts';
import { type PublicSiteLinks, publicSiteLinks } from '../../domain/catalog/public-site-content.ts';
import { SchoolSettingsFields } from '../../domain/school/school-settings.ts';
import { type SignUpDecision, signUpAvailability } from '../../domain/school/sign-up.ts';
import { findUserById, type User } from '../../domain/school/users.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import type { AppContext } from '../../http/context.ts';
import { CSRF_FIELD, csrfToken, currentSession, type Session } from '../../http/sessions.ts';
import { type Html, sendPage } from '../layout.ts';
import { PageRefusal } from '../shared/refusal.ts';
import { siteStyle } from './theme.ts';

/** A signed-in visitor and the CSRF token their forms carry. */
interface SiteViewer {
  readonly session: Session;
  readonly user: User;
  readonly csrf: string;
}

/** One request to a school's site. */
export interface SiteRequest {
  readonly site: PublicSite;
  /** `/schools/<subdomain>`: every link of the site starts here. */
  readonly base: string;
  readonly viewer: SiteViewer | undefined;
  /** This page's path and query, to come back to after signing in or up. */
  readonly here: string;
  /** The published pages and forms the footer links. */
  readonly links: PublicSiteLinks;
  /** Whether the site takes sign-ups now (the domain's rule), and if not, why. */
  readonly signUp: SignUpDecision;
}

/** The value of a read, or undefined when the read says 404 (anything else is thrown on). */
export async function found<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof ProblemError && err.status === 404) return undefined;
    throw err;
  }
}

/** Whether `value` may be a school's subdomain: the rule of the school's settings. */
function plausibleSubdomain(value: string | undefined): value is string {
  return value !== undefined && SchoolSettingsFields.shape.subdomain.safeParse(value).success;
}

/** The refusal of an address under a school that does not exist (the same for every one). */
function noSchool(): PageRefusal {
  return new PageRefusal(404, 'School not found', 'There is no school at this address.');
}

/** The refusal of a school's page that is not there (or not public): what is missing. */
export function notFound(what: string): PageRefusal {
  return new PageRefusal(404, 'Not found', what);
}

/** The site of the path's subdomain with the visitor; an unknown school is a 404 refusal. */
export async function openSite(ctx: AppContext, c: Context): Promise<SiteRequest> {
  const subdomain = c.req.param('subdomain') ?? '';
  const site = plausibleSubdomain(subdomain) ? await found(publicSite(ctx.db, subdomain)) : undefined;
  if (!site) throw noSchool();
  const session = await currentSession(ctx, c);
  const user = session ? await findUserById(ctx.db, session.userId) : undefined;
  const url = new URL(c.req.url);
  return {
    site,
    base: `/schools/${site.subdomain}`,
    viewer: session && user ? { session, user, csrf: csrfToken(ctx, c, session) } : undefined,
    here: `${url.pathname}${url.search}`,
    links: await publicSiteLinks(ctx.db, site.id),
    signUp: signUpAvailability(site, ctx.mailer.enabled),
  };
}

/** The school's sign-in link: /login, coming back to `back`. */
export function signInHref(back: string): string {
  return `/login?return_to=${encodeURIComponent(back)}`;
}

/** The school's sign-up link, coming back to `back`. */
export function signUpHref(req: SiteRequest, back: string): string {
  return `${req.base}/signup?return_to=${encodeURIComponent(back)}`;
}

type Section = 'home' | 'courses' | 'events' | 'posts' | 'signup' | 'other';

function header(req: SiteRequest, current: Section): Html {
  const { site, base, viewer } = req;
  const link = (href: string, label: string, section: Section) =>
    html`<a href="${href}"${current === section ? html` aria-current="page"` : ''}>${label}</a>`;
  const logo = site.appearance.logoFileId ? html`<img src="${base}/logo" alt="">` : '';
  const account = viewer
    ? html`<a href="${base}/learn">My courses</a>
<form class="inline" method="post" action="/logout"><input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}"><input type="hidden" name="return_to" value="${base}/"><button class="secondary small" type="submit">Sign out</button></form>`
    : html`<a href="${signInHref(req.here)}">Sign in</a>
${req.signUp.ok ? link(signUpHref(req, req.here), 'Sign up', 'signup') : ''}`;
  return html`<header class="site">
<a class="school" href="${base}/"${current === 'home' ? html` aria-current="page"` : ''}>${logo}${site.name}</a>
<nav aria-label="${site.name}">
${link(`${base}/courses`, 'Courses', 'courses')}
${link(`${base}/events`, 'Events', 'events')}
${link(`${base}/posts`, 'Posts', 'posts')}
</nav>
<span class="spacer"></span>
<nav aria-label="Your account">${account}</nav>
</header>`;
}

function footer(req: SiteRequest, extra: Html | string): Html {
  const { pages, forms } = req.links;
  const more =
    pages.length + forms.length === 0
      ? ''
      : html`<nav aria-label="More from ${req.site.name}"><ul>
${pages.map((p) => html`<li><a href="${req.base}/pages/${p.slug}">${p.title}</a></li>`)}
${forms.map((f) => html`<li><a href="${req.base}/forms/${f.id}">${f.title}</a></li>`)}
</ul></nav>`;
  return html`<footer class="site">
${extra}
${more}
<p>${req.site.name} · <a href="/">All schools on Lectern</a></p>
</footer>`;
}

/** Sends a page of the school's site: header, body, footer, in the school's theme. */
export function sendSitePage(
  c: Context,
  req: SiteRequest,
  status: number,
  title: string,
  body: Html,
  options: { current?: Section; footer?: Html | string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const page = html`${header(req, options.current ?? 'other')}
${body}
${footer(req, options.footer ?? '')}`;
  return sendPage(c, status, `${title} · ${req.site.name}`, page, {
    formAction: ["'self'"],
    wide: true,
    style: siteStyle(req.site),
    headers: options.headers,
  });
}

/** A refusal page of the school's site, in its chrome, with ways on (the site's own by default). */
export function sendSiteRefusal(c: Context, req: SiteRequest, refusal: PageRefusal): Promise<Response> {
  const ways =
    refusal.links.length > 0
      ? html`<p>${refusal.links.map((l, i) => html`${i > 0 ? ' · ' : ''}<a href="${l.href}">${l.label}</a>`)}</p>`
      : html`<p>See the <a href="${req.base}/courses">courses of ${req.site.name}</a>, go to the <a href="${req.base}/">home page of ${req.site.name}</a>, or see <a href="/">all schools</a>.</p>`;
  const body = html`<h1>${refusal.title}</h1>
<div class="notice error" role="alert"><p>${refusal.detail}</p></div>
${ways}`;
  return sendSitePage(c, req, refusal.status, refusal.title, body, { headers: { ...refusal.headers } });
}

/** A refusal before any school was found (the unknown school's 404), without a school's chrome. */
export function sendBareRefusal(c: Context, refusal: PageRefusal): Promise<Response> {
  const body = html`<h1>${refusal.title}</h1>
<div class="notice error" role="alert"><p>${refusal.detail}</p></div>
<p>Check the address, or find your school on the <a href="/">list of schools</a>.</p>`;
  return sendPage(c, refusal.status, refusal.title, body, {
    formAction: ["'self'"],
    headers: { ...refusal.headers },
  });
}
