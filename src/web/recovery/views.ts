/**
 * The pages of account recovery: asking for a reset link, setting the new password,
 * and the lockout page of `/login`. None points back at "the app": someone may have come to
 * `/login` directly.
 */
import type { Context } from 'hono';
import { html } from 'hono/html';
import { MIN_PASSWORD_LENGTH } from '../../crypto/passwords.ts';
import { CSRF_FIELD } from '../../http/sessions.ts';
import { minutes } from '../error-page.ts';
import { sendPage } from '../layout.ts';
import { PageRefusal } from '../shared/refusal.ts';

const FORM_ONLY_HERE = { formAction: ["'self'"] };

const errorNotice = (id: string, error?: string) =>
  error ? html`<div class="notice error" role="alert" id="${id}"><p>${error}</p></div>` : '';

/** The form asking for the email to send a reset link to (or why there is none). */
export function requestPage(
  c: Context,
  status: number,
  csrf: string | undefined,
  error?: string,
): Promise<Response> {
  const body = csrf
    ? html`<h1>Reset your password</h1>
${errorNotice('reset-error', error)}
<p>Enter the email you sign in with. If it belongs to an account, we send a link to choose a new password; the link works for one hour, once.</p>
<form method="post" action="/password-reset" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required${error ? html` aria-describedby="reset-error"` : ''}>
<div class="actions"><button class="primary" type="submit">Send reset link</button></div>
</form>
<p><a href="/login">Back to sign in</a></p>`
    : html`<h1>Reset your password</h1>
<div class="notice warning" role="status"><p>This Lectern server cannot send email, so it cannot send you a reset link.</p></div>
<p>Ask an owner or admin of your school to help you get back into your account.</p>
<p><a href="/login">Back to sign in</a></p>`;
  return sendPage(c, status, 'Reset your password', body, FORM_ONLY_HERE);
}

/** After a request, whatever the email: the same words for known and unknown addresses. */
export function sentPage(c: Context): Promise<Response> {
  return sendPage(
    c,
    200,
    'Check your email',
    html`<h1>Check your email</h1>
<div class="notice success" role="status"><p>If an account uses that email, a link to choose a new password is on its way. It works for one hour, once.</p></div>
<p>Nothing after a few minutes? Check your spam folder, or <a href="/password-reset">ask for another link</a>.</p>
<p><a href="/login">Back to sign in</a></p>`,
  );
}

/** The form that sets the new password, reached through the emailed link. */
export function newPasswordPage(
  c: Context,
  status: number,
  action: string,
  csrf: string,
  error?: string,
): Promise<Response> {
  const described = error
    ? html` aria-describedby="password-error password-hint"`
    : html` aria-describedby="password-hint"`;
  const body = html`<h1>Choose a new password</h1>
${errorNotice('password-error', error)}
<form method="post" action="${action}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required${described}>
<p class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters.</p>
<label for="confirm">New password, again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
<div class="actions"><button class="primary" type="submit">Set new password</button></div>
</form>
<p class="muted">Setting it signs you out everywhere: every browser and every connected app.</p>`;
  return sendPage(c, status, 'Choose a new password', body, FORM_ONLY_HERE);
}

/** A link that cannot be used (forged, expired or already used): what happened and what next. */
export function deadLink(status: 404 | 410): PageRefusal {
  const what =
    status === 410
      ? 'This password-reset link has expired or was already used. Links work for one hour and only once.'
      : 'This password-reset link is not valid. Links work for one hour and only once.';
  return new PageRefusal(status, 'Link not usable', what, {
    links: [
      { href: '/password-reset', label: 'Ask for a new link' },
      { href: '/login', label: 'Sign in if you know your password' },
    ],
  });
}

/** After a reset. */
export function donePage(c: Context): Promise<Response> {
  return sendPage(
    c,
    200,
    'Password changed',
    html`<h1>Password changed</h1>
<div class="notice success" role="status"><p>Your new password is set. You were signed out everywhere, and any lock on your account was lifted.</p></div>
<p><a href="/login">Sign in with your new password</a></p>`,
  );
}

/**
 * `/login`'s answer while the account (or the address) is over its limit: how long, and the
 * three ways out (wait, reset the password when mail works, ask an operator to unlock).
 */
export function lockoutPage(c: Context, wait: number, canReset: boolean): Promise<Response> {
  return sendPage(
    c,
    429,
    'Sign-in paused',
    html`<h1>Sign-in paused</h1>
<div class="notice error" role="alert"><p>Too many failed sign-ins. Try again in ${minutes(wait)}.</p></div>
<p>To protect the account, signing in is paused after repeated wrong passwords. You can:</p>
<ul>
<li>wait ${minutes(wait)} and <a href="/login">sign in again</a>;</li>
${canReset ? html`<li><a href="/password-reset">reset your password</a> by email, which also lifts the pause;</li>` : ''}
<li>ask an owner or admin of your school to unlock your account.</li>
</ul>`,
    { headers: { 'Retry-After': String(wait) } },
  );
}
