/**
 * What the signed-in pages (`/account`, `/admin`) share: the viewer, CSRF fields and
 * confirmation forms, the top navigation, notices and dates. The guard that finds the viewer and
 * checks every POST's CSRF token is shared/viewer.ts.
 */
import type { Context } from 'hono';
import { html } from 'hono/html';
import type { User } from '../../domain/school/users.ts';
import { CSRF_FIELD, type Session } from '../../http/sessions.ts';
import { type Html, sendPage } from '../layout.ts';
import { utcTimeOf } from './school-format.ts';

/** The person behind a signed-in browser, and the CSRF token their forms carry. */
export interface Viewer {
  readonly session: Session;
  readonly user: User;
  readonly csrf: string;
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

/** An ISO timestamp as a readable UTC date and time (school-format.ts `utcTimeOf`), or "never". */
export function when(iso: string | null): Html {
  return iso ? utcTimeOf(iso) : html`<span class="muted">never</span>`;
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
