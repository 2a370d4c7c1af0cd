/**
 * `/password-reset`: "Forgot password?" from `/login`, one sub-app mounted at its prefix. The
 * request form answers the same for known and unknown emails, and the work that differs (storing
 * the token, composing and sending the mail) runs after the answer, so its timing tells nothing
 * either. The emailed link sets a new password once, within an hour, and signs the person out
 * everywhere.
 */
import { type Context, Hono } from 'hono';
import { hashPassword } from '../../crypto/passwords.ts';
import {
  createPasswordReset,
  inspectPasswordReset,
  resetPasswordThroughLink,
} from '../../domain/school/password-resets.ts';
import { findUserByEmail, findUserById, normalizeEmail, type User } from '../../domain/school/users.ts';
import { clientAddress } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import { unlockAccount } from '../../http/login-throttle.ts';
import { logSecurityEvent } from '../../http/security-log.ts';
import { csrfToken, endUserSessions } from '../../http/sessions.ts';
import type { ThrottleRule } from '../../http/throttle.ts';
import { revokeAllGrantsOfUser } from '../../oauth/grants/grants.ts';
import { tooManyAttempts } from '../error-page.ts';
import { anonymousForms, type FormEnv, pageRefusalHandler, sendRefusalPage } from '../shared/viewer.ts';
import { passwordChangedMail, resetMail, sendInBackground } from './mails.ts';
import { checkNewPassword } from './password-rules.ts';
import { deadLink, donePage, newPasswordPage, requestPage, sentPage } from './views.ts';

// Reset mails per account per hour, and requests or link uses per client address per 15 minutes.
const ACCOUNT_REQUESTS = 3;
const ADDRESS_REQUESTS = 20;
const ADDRESS_WINDOW_SECONDS = 15 * 60;

type RecoveryContext = Context<FormEnv>;

function requestRules(email: string, address: string): ThrottleRule[] {
  return [
    { key: `reset:account:${email}`, limit: ACCOUNT_REQUESTS, windowSeconds: 3600 },
    { key: `reset:ip:${address}`, limit: ADDRESS_REQUESTS, windowSeconds: ADDRESS_WINDOW_SECONDS },
  ];
}

const useRule = (address: string): ThrottleRule => ({
  key: `reset-use:ip:${address}`,
  limit: ADDRESS_REQUESTS,
  windowSeconds: ADDRESS_WINDOW_SECONDS,
});

/** Stores the token and mails the link; runs after the answer is sent (see the module comment). */
function startReset(ctx: AppContext, user: User, requestId: string): void {
  const link = createPasswordReset(ctx.db, user.id).then((token) =>
    new URL(`/password-reset/${token}`, ctx.config.baseUrl).toString(),
  );
  sendInBackground(
    ctx,
    user.id,
    link.then((url) => resetMail(ctx, user, url)),
  );
  logSecurityEvent(ctx.logger, 'password.reset_requested', { userId: user.id, requestId });
}

/** After the new password is stored: every browser signed out, the lock lifted, a notice mailed. */
async function finishReset(ctx: AppContext, userId: string, requestId: string): Promise<void> {
  const user = await findUserById(ctx.db, userId);
  if (!user) return;
  const ended = await endUserSessions(ctx, userId);
  await unlockAccount(ctx.throttle, user.email);
  logSecurityEvent(ctx.logger, 'password.reset', { userId, requestId });
  logSecurityEvent(ctx.logger, 'sessions.revoked', {
    userId,
    requestId,
    sessions: ended,
    reason: 'password_reset',
  });
  if (ctx.mailer.enabled) sendInBackground(ctx, userId, passwordChangedMail(ctx, user));
}

/** GET `/password-reset`: the request form, or why no link can be sent. */
function showRequestForm(ctx: AppContext) {
  return (c: RecoveryContext) => requestPage(c, 200, ctx.mailer.enabled ? csrfToken(ctx, c) : undefined);
}

/**
 * POST `/password-reset` without mail: no link can be sent, and the page handed out no form (so
 * no token), so this answer comes before the area's CSRF check.
 */
function refuseWithoutMail(ctx: AppContext) {
  return async (c: RecoveryContext, next: () => Promise<void>) => {
    if (ctx.mailer.enabled) return next();
    return requestPage(c, 503, undefined);
  };
}

/** POST `/password-reset`: mails a link when the email has an account; the same answer either way. */
function requestLink(ctx: AppContext) {
  return async (c: RecoveryContext) => {
    const email = normalizeEmail((c.var.form.get('email') ?? '').slice(0, 320));
    if (!email || email.includes('\u0000') || !email.includes('@')) {
      return requestPage(c, 400, csrfToken(ctx, c), 'Enter the email you sign in with.');
    }
    const reservation = await ctx.throttle.reserve(requestRules(email, clientAddress(ctx.config, c)));
    if (reservation.retryAfter > 0) throw tooManyAttempts(reservation.retryAfter, 'Too many reset requests.');
    const user = await findUserByEmail(ctx.db, email);
    if (user) startReset(ctx, user, c.get('requestId'));
    return c.redirect('/password-reset/sent', 303);
  };
}

/** GET `/password-reset/<token>`: the new-password form while the link is usable. */
function showNewPasswordForm(ctx: AppContext) {
  return async (c: RecoveryContext) => {
    const found = await inspectPasswordReset(ctx.db, c.req.param('token') ?? '');
    if (found.state !== 'usable') throw deadLink(found.state === 'spent' ? 410 : 404);
    return newPasswordPage(c, 200, c.req.path, csrfToken(ctx, c));
  };
}

/** POST `/password-reset/<token>`: sets the new password once, and ends every session and grant. */
function setNewPassword(ctx: AppContext) {
  return async (c: RecoveryContext) => {
    const form = c.var.form;
    const reservation = await ctx.throttle.reserve([useRule(clientAddress(ctx.config, c))]);
    if (reservation.retryAfter > 0) {
      throw tooManyAttempts(reservation.retryAfter, 'Too many attempts from this network.');
    }
    const problem = checkNewPassword(form.get('password') ?? '', form.get('confirm') ?? '');
    if (problem) return newPasswordPage(c, 400, c.req.path, csrfToken(ctx, c), problem);
    const done = await resetPasswordThroughLink(ctx.db, c.req.param('token') ?? '', {
      passwordHash: await hashPassword(form.get('password') ?? ''),
      // Without SMTP no link was mailed (an operator handed it over, web/admin/member-reset.ts).
      mailboxProven: ctx.mailer.enabled,
      endAccess: revokeAllGrantsOfUser,
    });
    if (!done.ok) throw deadLink(done.reason === 'unknown' ? 404 : 410);
    await finishReset(ctx, done.userId, c.get('requestId'));
    return c.redirect('/password-reset/done', 303);
  };
}

/** The recovery pages, mounted at `/password-reset`. */
export function createRecoveryArea(ctx: AppContext): Hono<FormEnv> {
  const app = new Hono<FormEnv>();
  app.onError(
    pageRefusalHandler((c, refusal) =>
      sendRefusalPage(c, refusal, { href: c.req.path, label: 'Open the form again' }),
    ),
  );
  app.post('/', refuseWithoutMail(ctx));
  app.use('*', anonymousForms(ctx));
  app.get('/', showRequestForm(ctx));
  app.post('/', requestLink(ctx));
  app.get('/sent', (c) => sentPage(c));
  app.get('/done', (c) => donePage(c));
  app.get('/:token', showNewPasswordForm(ctx));
  app.post('/:token', setNewPassword(ctx));
  return app;
}
