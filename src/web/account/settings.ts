/**
 * The person's own settings: change their name, change their password (the current
 * one required, then a notice by email and the other sessions signed out), and sign out their
 * other sessions. Mounted next to the account page by one line in web/pages.ts.
 */
import { type Context, Hono } from 'hono';
import { hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from '../../crypto/passwords.ts';
import { listMembershipsOfUser } from '../../domain/school/memberships.ts';
import { mayActFor, standingRoles } from '../../domain/school/standing.ts';
import { setUserPasswordHash, updateUserName } from '../../domain/school/users.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { logSecurityEvent } from '../../http/security-log.ts';
import { countOtherSessions, endUserSessions } from '../../http/sessions.ts';
import { minutes } from '../error-page.ts';
import { passwordChangedMail, sendInBackground } from '../recovery/mails.ts';
import { checkNewPassword } from '../recovery/password-rules.ts';
import { type NavLink, readForm, requireViewer, sendAreaPage, type Viewer } from '../shared/page-kit.ts';
import { type SettingsError, settingsPage } from './settings-views.ts';

const PAGE = '/account/settings';
const NAME_MAX = 120;
// Wrong current passwords tolerated per person within 15 minutes: a borrowed session must not
// become a way to guess the password.
const CURRENT_PASSWORD_LIMIT = 5;

/** The settings page and its three actions. */
export function createAccountSettingsApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  const nav = async (viewer: Viewer): Promise<NavLink[]> => {
    const memberships = await listMembershipsOfUser(ctx.db, viewer.user.id);
    const operator = memberships.some((m) => mayActFor('operator', standingRoles(m)));
    return [
      { href: '/account', label: 'My account' },
      { href: PAGE, label: 'Settings', current: true },
      ...(operator ? [{ href: '/admin', label: 'Admin' }] : []),
    ];
  };
  const show = async (c: Context, viewer: Viewer, status: number, done?: string, error?: SettingsError) => {
    const otherSessions = await countOtherSessions(ctx, viewer.user.id, viewer.session.idHash);
    const body = settingsPage(viewer, await nav(viewer), { done, error, otherSessions });
    return sendAreaPage(c, status, 'Account settings', body);
  };
  // Signed in and a CSRF-checked form: the viewer and the form, or the answer to send.
  const formOf = async (c: Context) => {
    const viewer = await requireViewer(ctx, c, PAGE);
    if (viewer instanceof Response) return viewer;
    const form = await readForm(ctx, c, viewer);
    return form instanceof Response ? form : { viewer, form };
  };

  app.get(PAGE, async (c) => {
    const viewer = await requireViewer(ctx, c, PAGE);
    if (viewer instanceof Response) return viewer;
    return show(c, viewer, 200, c.req.query('done'));
  });

  app.post('/account/name', async (c) => {
    const got = await formOf(c);
    if (got instanceof Response) return got;
    const name = (got.form.get('name') ?? '').trim();
    if (!name || name.length > NAME_MAX || name.includes('\u0000')) {
      const message = `Enter a name of 1 to ${NAME_MAX} characters.`;
      return show(c, got.viewer, 400, undefined, { form: 'name', message });
    }
    await updateUserName(ctx.db, got.viewer.user.id, name);
    return c.redirect(`${PAGE}?done=name`, 303);
  });

  app.post('/account/password', async (c) => {
    const got = await formOf(c);
    if (got instanceof Response) return got;
    const { viewer, form } = got;
    const refuse = (status: number, message: string) =>
      show(c, viewer, status, undefined, { form: 'password', message });
    const current = form.get('current') ?? '';
    const password = form.get('password') ?? '';
    const problem = checkNewPassword(password, form.get('confirm') ?? '');
    if (problem) return refuse(400, problem);
    const reservation = await ctx.throttle.reserve([
      { key: `account-password:${viewer.user.id}`, limit: CURRENT_PASSWORD_LIMIT, windowSeconds: 15 * 60 },
    ]);
    if (reservation.retryAfter > 0) {
      return refuse(
        429,
        `Too many wrong current passwords. Try again in ${minutes(reservation.retryAfter)}.`,
      );
    }
    const ok =
      current.length <= MAX_PASSWORD_LENGTH && (await verifyPassword(viewer.user.password_hash, current));
    if (!ok) return refuse(400, 'The current password is not right.');
    await reservation.release();
    await setUserPasswordHash(ctx.db, viewer.user.id, await hashPassword(password));
    const ended = await endUserSessions(ctx, viewer.user.id, viewer.session.idHash);
    const requestId = c.get('requestId');
    logSecurityEvent(ctx.logger, 'password.changed', { userId: viewer.user.id, requestId });
    logSecurityEvent(ctx.logger, 'sessions.revoked', {
      userId: viewer.user.id,
      requestId,
      sessions: ended,
      reason: 'password_changed',
    });
    if (ctx.mailer.enabled) sendInBackground(ctx, viewer.user.id, passwordChangedMail(ctx, viewer.user));
    return c.redirect(`${PAGE}?done=password`, 303);
  });

  app.post('/account/sessions/sign-out-others', async (c) => {
    const got = await formOf(c);
    if (got instanceof Response) return got;
    const ended = await endUserSessions(ctx, got.viewer.user.id, got.viewer.session.idHash);
    logSecurityEvent(ctx.logger, 'sessions.revoked', {
      userId: got.viewer.user.id,
      requestId: c.get('requestId'),
      sessions: ended,
      reason: 'signed_out_others',
    });
    return c.redirect(`${PAGE}?done=sessions`, 303);
  });

  return app;
}
