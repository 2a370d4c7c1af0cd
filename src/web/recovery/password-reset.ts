/**
 * `/password-reset`: "Forgot password?" from `/login`. The request form answers the
 * same for known and unknown emails, and the work that differs (storing the token, composing and
 * sending the mail) runs after the answer, so its timing tells nothing either. The emailed link
 * sets a new password once, within an hour, and signs the person out everywhere.
 */
import { type Context, Hono } from 'hono';
import { hashPassword } from '../../crypto/passwords.ts';
import {
  consumePasswordReset,
  createPasswordReset,
  inspectPasswordReset,
} from '../../domain/school/password-resets.ts';
import {
  findUserByEmail,
  findUserById,
  markEmailProven,
  normalizeEmail,
  setUserPasswordHash,
  type User,
} from '../../domain/school/users.ts';
import { clientAddress } from '../../http/client-address.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { unlockAccount } from '../../http/login-throttle.ts';
import { logSecurityEvent } from '../../http/security-log.ts';
import { CSRF_FIELD, csrfToken, endUserSessions, verifyCsrf } from '../../http/sessions.ts';
import type { ThrottleRule } from '../../http/throttle.ts';
import { isFormRequest } from '../../oauth/form-body.ts';
import { revokeAllGrantsOfUser } from '../../oauth/grants/grants.ts';
import { inTransaction } from '../../store/database.ts';
import { errorPage, slowDownPage } from '../error-page.ts';
import { passwordChangedMail, resetMail, sendInBackground } from './mails.ts';
import { checkNewPassword } from './password-rules.ts';
import { deadLinkPage, donePage, newPasswordPage, requestPage, sentPage } from './views.ts';

// Reset mails per account per hour, and requests or link uses per client address per 15 minutes.
const ACCOUNT_REQUESTS = 3;
const ADDRESS_REQUESTS = 20;
const ADDRESS_WINDOW_SECONDS = 15 * 60;

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

async function readForm(c: Context): Promise<URLSearchParams | Response> {
  if (!isFormRequest(c))
    return errorPage(c, 415, 'Unsupported form', 'This form must be sent as a web form.');
  return new URLSearchParams(await c.req.text());
}

/** The password-reset pages. */
export function createPasswordResetApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const csrfIfMail = (c: Context) => (ctx.mailer.enabled ? csrfToken(ctx, c) : undefined);

  // Stores the token and mails the link; runs after the answer is sent (see the module comment).
  const startReset = (user: User, requestId: string) => {
    const link = createPasswordReset(ctx.db, user.id).then((token) =>
      new URL(`/password-reset/${token}`, ctx.config.baseUrl).toString(),
    );
    sendInBackground(
      ctx,
      user.id,
      link.then((url) => resetMail(ctx, user, url)),
    );
    logSecurityEvent(ctx.logger, 'password.reset_requested', { userId: user.id, requestId });
  };

  app.get('/password-reset', (c) => requestPage(c, 200, csrfIfMail(c)));

  app.post('/password-reset', async (c) => {
    if (!ctx.mailer.enabled) return requestPage(c, 503, undefined);
    const form = await readForm(c);
    if (form instanceof Response) return form;
    if (!verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined)) {
      return requestPage(c, 403, csrfToken(ctx, c), 'This form has expired. Please try again.');
    }
    const email = normalizeEmail((form.get('email') ?? '').slice(0, 320));
    if (!email || email.includes('\u0000') || !email.includes('@')) {
      return requestPage(c, 400, csrfToken(ctx, c), 'Enter the email you sign in with.');
    }
    const reservation = await ctx.throttle.reserve(requestRules(email, clientAddress(ctx.config, c)));
    if (reservation.retryAfter > 0) {
      return slowDownPage(c, reservation.retryAfter, 'Too many reset requests.');
    }
    const user = await findUserByEmail(ctx.db, email);
    if (user) startReset(user, c.get('requestId'));
    return c.redirect('/password-reset/sent', 303);
  });

  app.get('/password-reset/sent', (c) => sentPage(c));
  app.get('/password-reset/done', (c) => donePage(c));

  app.get('/password-reset/:token', async (c) => {
    const found = await inspectPasswordReset(ctx.db, c.req.param('token'));
    if (found.state !== 'usable') return deadLinkPage(c, found.state === 'spent' ? 410 : 404);
    return newPasswordPage(c, 200, c.req.path, csrfToken(ctx, c));
  });

  app.post('/password-reset/:token', async (c) => {
    const token = c.req.param('token');
    const form = await readForm(c);
    if (form instanceof Response) return form;
    const again = (status: number, error: string) =>
      newPasswordPage(c, status, c.req.path, csrfToken(ctx, c), error);
    if (!verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined)) {
      return again(403, 'This form has expired. Please enter the new password again.');
    }
    const reservation = await ctx.throttle.reserve([useRule(clientAddress(ctx.config, c))]);
    if (reservation.retryAfter > 0)
      return slowDownPage(c, reservation.retryAfter, 'Too many attempts from this network.');
    const problem = checkNewPassword(form.get('password') ?? '', form.get('confirm') ?? '');
    if (problem) return again(400, problem);
    const passwordHash = await hashPassword(form.get('password') ?? '');
    const userId = await inTransaction(ctx.db, async (tx) => {
      const id = await consumePasswordReset(tx, token);
      if (id) {
        await setUserPasswordHash(tx, id, passwordHash);
        // The link reached the mailbox: an account trusted at one school only is now the owner's.
        // Without SMTP no link was mailed (an operator handed it over, web/admin/member-reset.ts),
        // so using one proves nothing about the mailbox.
        if (ctx.mailer.enabled) await markEmailProven(tx, id);
        await revokeAllGrantsOfUser(tx, id);
      }
      return id;
    });
    if (!userId) {
      const state = await inspectPasswordReset(ctx.db, token);
      return deadLinkPage(c, state.state === 'unknown' ? 404 : 410);
    }
    await finishReset(ctx, userId, c.get('requestId'));
    return c.redirect('/password-reset/done', 303);
  });

  return app;
}

// After the new password is stored: every browser signed out, the lock lifted, a notice mailed.
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
