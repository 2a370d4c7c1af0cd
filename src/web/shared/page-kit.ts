/**
 * What the signed-in pages (`/account`, `/admin`) share: the session guard, CSRF-checked form
 * reading, the top navigation, notices and dates.
 */
import type { Context } from 'hono';
import { html } from 'hono/html';
import { findUserById, type User } from '../../domain/school/users.ts';
import type { AppContext } from '../../http/context.ts';
import { CSRF_FIELD, csrfToken, currentSession, type Session, verifyCsrf } from '../../http/sessions.ts';
import { isFormRequest } from '../../oauth/form-body.ts';
import { type Html, sendPage } from '../layout.ts';

/** The person behind a signed-in browser, and the CSRF token their forms carry. */
export interface Viewer {
  readonly session: Session;
  readonly user: User;
  readonly csrf: string;
}

/**
 * The signed-in viewer, or a redirect to `/login` that comes back here after sign-in (only GET
 * pages come back: a POST's target is not a page to return to).
 */
export async function requireViewer(
  ctx: AppContext,
  c: Context,
  fallback: string,
): Promise<Viewer | Response> {
  const session = await currentSession(ctx, c);
  const user = session ? await findUserById(ctx.db, session.userId) : undefined;
  if (!session || !user) {
    const url = new URL(c.req.url);
    const back = c.req.method === 'GET' ? `${url.pathname}${url.search}` : fallback;
    return c.redirect(`/login?return_to=${encodeURIComponent(back)}`, c.req.method === 'GET' ? 302 : 303);
  }
  return { session, user, csrf: csrfToken(ctx, c, session) };
}

/**
 * A POSTed form of this viewer, or the refusal page: every state change is a form POST carrying
 * the session's synchronizer token (OWASP CSRF cheat sheet), so a forged cross-site POST fails.
 */
export async function readForm(
  ctx: AppContext,
  c: Context,
  viewer: Viewer,
): Promise<URLSearchParams | Response> {
  if (!isFormRequest(c)) {
    return messagePage(c, 415, 'Unsupported form', 'This form must be sent as a web form.');
  }
  const form = new URLSearchParams(await c.req.text());
  if (!verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined, viewer.session)) {
    return messagePage(
      c,
      403,
      'Form expired',
      'This form has expired or did not come from this site. Go back, reload the page and try again.',
    );
  }
  return form;
}

/** The hidden CSRF field of a form. */
export function csrfField(viewer: Viewer): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}">`;
}

/**
 * The form of a page that asks before destroying something (a grant, an app, a membership): one
 * danger button that POSTs, with the CSRF field and any `hidden` values, and a way back.
 */
export function confirmForm(
  viewer: Viewer,
  action: string,
  button: string,
  cancelHref: string,
  hidden: Readonly<Record<string, string>> = {},
): Html {
  return html`<form method="post" action="${action}">${csrfField(viewer)}
${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<div class="actions start"><button class="danger" type="submit">${button}</button>
<a href="${cancelHref}">Cancel</a></div></form>`;
}

/** A link of the top navigation. */
export interface NavLink {
  readonly href: string;
  readonly label: string;
  readonly current?: boolean;
}

/** The navigation bar at the top of each signed-in page, with the sign-out button. */
export function topNav(viewer: Viewer, links: readonly NavLink[]): Html {
  return html`<nav class="top" aria-label="Main">
${links.map((l) => html`<a href="${l.href}"${l.current ? html` aria-current="page"` : ''}>${l.label}</a>`)}
<span class="spacer"></span>
<span class="muted">${viewer.user.email}</span>
<form class="inline" method="post" action="/logout">${csrfField(viewer)}<button class="secondary small" type="submit">Sign out</button></form>
</nav>`;
}

/** A notice shown after an action (role=status so screen readers announce it). */
export function notice(kind: 'success' | 'error' | 'warning', text: string | Html): Html {
  return html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}"><p>${text}</p></div>`;
}

/** An ISO timestamp as a readable UTC date and time. */
export function when(iso: string | null): Html {
  if (!iso) return html`<span class="muted">never</span>`;
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** Sends a signed-in page: wide layout, forms post only to this origin. */
export function sendAreaPage(c: Context, status: number, title: string, body: Html): Promise<Response> {
  return sendPage(c, status, title, body, { formAction: ["'self'"], wide: true });
}

/** A page with one message (refusals, not-found), with a way back. */
export function messagePage(
  c: Context,
  status: number,
  title: string,
  message: string,
  back: { href: string; label: string } = { href: '/account', label: 'Go to your account' },
): Promise<Response> {
  const body = html`<h1>${title}</h1>
${notice(status >= 400 ? 'error' : 'success', message)}
<p><a href="${back.href}">${back.label}</a></p>`;
  return sendPage(c, status, title, body, { formAction: ["'self'"] });
}
