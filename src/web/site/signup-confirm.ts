/**
 * The link of the sign-up mail (`…/signup/confirm?user=…&token=…&return_to=…`). Opening it
 * changes nothing (mail scanners and link previews open links by themselves): it shows a button
 * whose POST proves the mailbox and, the first time, signs the new person in. The button's form
 * carries the browser's CSRF token like every form of the site, so nobody else's page can sign a
 * visitor into an account of theirs (login CSRF).
 */
import { html } from 'hono/html';
import { confirmSignUpEmail } from '../../domain/school/sign-up.ts';
import { findUserById, type User } from '../../domain/school/users.ts';
import { clientAddress } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import { logSecurityEvent } from '../../http/security-log.ts';
import { CSRF_FIELD, csrfToken, startSession } from '../../http/sessions.ts';
import { safeReturnTo } from '../login.ts';
import { notice } from '../shared/page-kit.ts';
import { PageRedirect, PageRefusal } from '../shared/refusal.ts';
import type { SiteContext } from './context.ts';
import { type SiteRequest, sendSitePage, signInHref } from './kit.ts';
import { verifySigned } from './signing.ts';

/** The account of a confirmation link's `user` and `token`, when the token is valid for it. */
async function confirming(ctx: AppContext, userId: string, token: string): Promise<User | undefined> {
  const user = /^usr_[0-9a-z]{26}$/.test(userId) ? await findUserById(ctx.db, userId) : undefined;
  return user && verifySigned(ctx, 'signup-confirm', `${user.id}:${user.email}`, token) ? user : undefined;
}

function linkNotValid(): PageRefusal {
  return new PageRefusal(
    410,
    'Link not valid',
    'This confirmation link is not valid or has expired (links work for seven days). You can still confirm your email address by resetting your password.',
    { links: [{ href: '/password-reset', label: 'Forgot password?' }] },
  );
}

function returnOf(ctx: AppContext, req: SiteRequest, value: string | null | undefined): string {
  return safeReturnTo(value ?? undefined, ctx.config.baseUrl) ?? `${req.base}/`;
}

/** `GET …/signup/confirm`: the button that confirms. */
export async function showSignUpConfirmation(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const token = c.req.query('token') ?? '';
  const user = await confirming(ctx, c.req.query('user') ?? '', token);
  if (!user) throw linkNotValid();
  const body = html`<h1>Confirm your email address</h1>
<p>Confirm that <strong>${user.email}</strong> is your email address for your account at ${req.site.name}.</p>
<form class="site-form" method="post" action="${req.base}/signup/confirm">
<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken(ctx, c, req.viewer?.session)}">
<input type="hidden" name="user" value="${user.id}">
<input type="hidden" name="token" value="${token}">
<input type="hidden" name="return_to" value="${returnOf(ctx, req, c.req.query('return_to'))}">
<div class="actions"><button class="primary" type="submit">Confirm my email address</button></div>
</form>`;
  return sendSitePage(c, req, 200, 'Confirm your email address', body);
}

/**
 * `POST …/signup/confirm`: proves the mailbox. The first time it also signs the person in and
 * takes them where they were going; pressed again it only says the address is confirmed.
 */
export async function confirmSignUp(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const form = c.get('form');
  const user = await confirming(ctx, form.get('user') ?? '', form.get('token') ?? '');
  if (!user) throw linkNotValid();
  if (!(await confirmSignUpEmail(ctx.db, user.id)))
    throw new PageRedirect(`${req.base}/signup/confirmed`, 303);
  await startSession(ctx, c, user.id);
  logSecurityEvent(ctx.logger, 'login.succeeded', {
    userId: user.id,
    schoolId: req.site.id,
    address: clientAddress(ctx.config, c),
    requestId: c.get('requestId'),
  });
  return c.redirect(returnOf(ctx, req, form.get('return_to')), 303);
}

/** `GET …/signup/confirmed`: said when the address was confirmed before. */
export async function showSignUpConfirmed(_ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const body = html`<h1>Email confirmed</h1>
${notice('success', 'Thank you: your email address is confirmed.')}
<p>${req.viewer ? '' : html`<a href="${signInHref(`${req.base}/`)}">Sign in</a> · `}<a href="${req.base}/courses">See the courses of ${req.site.name}</a></p>`;
  return sendSitePage(c, req, 200, 'Email confirmed', body);
}
