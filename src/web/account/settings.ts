/**
 * The person's own settings: change their name, change their password (the current one required,
 * then a notice by email and the other sessions signed out), and sign out their other sessions.
 * The handlers run inside the account area (area.ts), which has signed the viewer in and checked
 * each POST's CSRF token.
 */
import type { Context } from 'hono';
import { hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from '../../crypto/passwords.ts';
import { listMembershipsOfUser } from '../../domain/school/memberships.ts';
import { checkPersonName } from '../../domain/school/person-name.ts';
import { mayActFor, standingRoles } from '../../domain/school/standing.ts';
import { setUserPasswordHash, updateUserName } from '../../domain/school/users.ts';
import type { AppContext } from '../../http/context.ts';
import { logSecurityEvent } from '../../http/security-log.ts';
import { countOtherSessions, endUserSessions } from '../../http/sessions.ts';
import { minutes } from '../error-page.ts';
import { passwordChangedMail, sendInBackground } from '../recovery/mails.ts';
import { checkNewPassword } from '../recovery/password-rules.ts';
import { type NavLink, sendAreaPage, type Viewer } from '../shared/page-kit.ts';
import { personNameWords } from '../shared/person-name.ts';
import type { ViewerEnv } from '../shared/viewer.ts';
import { type SettingsError, settingsPage } from './settings-views.ts';

/** The settings page's path. */
const SETTINGS_PAGE = '/account/settings';
// Wrong current passwords tolerated per person within 15 minutes: a borrowed session must not
// become a way to guess the password.
const CURRENT_PASSWORD_LIMIT = 5;

type AccountContext = Context<ViewerEnv>;

/** The account area's navigation, with Admin for an operator of any school. */
export async function accountNav(ctx: AppContext, viewer: Viewer, current: string): Promise<NavLink[]> {
  const memberships = await listMembershipsOfUser(ctx.db, viewer.user.id);
  const operator = memberships.some((m) => mayActFor('operator', standingRoles(m)));
  return [
    { href: '/account', label: 'My account', current: current === '/account' },
    { href: SETTINGS_PAGE, label: 'Settings', current: current === SETTINGS_PAGE },
    ...(operator ? [{ href: '/admin', label: 'Admin' }] : []),
  ];
}

/** The settings page, with a notice (`done`) or one form's error. */
async function show(
  ctx: AppContext,
  c: AccountContext,
  status: number,
  done?: string,
  error?: SettingsError,
) {
  const viewer = c.var.viewer;
  const otherSessions = await countOtherSessions(ctx, viewer.user.id, viewer.session.idHash);
  const body = settingsPage(viewer, await accountNav(ctx, viewer, SETTINGS_PAGE), {
    done,
    error,
    otherSessions,
  });
  return sendAreaPage(c, status, 'Account settings', body);
}

/** GET `/account/settings`. */
export function showSettings(ctx: AppContext) {
  return (c: AccountContext) => show(ctx, c, 200, c.req.query('done'));
}

/** POST `/account/name`: renames the viewer under the one name rule (domain/school/person-name.ts). */
export function rename(ctx: AppContext) {
  return async (c: AccountContext) => {
    const checked = checkPersonName(c.var.form.get('name') ?? '');
    if (!checked.ok) {
      return show(ctx, c, 400, undefined, { form: 'name', message: personNameWords(checked.reason) });
    }
    await updateUserName(ctx.db, c.var.viewer.user.id, checked.name);
    return c.redirect(`${SETTINGS_PAGE}?done=name`, 303);
  };
}

/** POST `/account/password`: the current password, then the new one twice. */
export function changePassword(ctx: AppContext) {
  return async (c: AccountContext) => {
    const { viewer, form } = c.var;
    const refuse = (status: number, message: string) =>
      show(ctx, c, status, undefined, { form: 'password', message });
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
    return c.redirect(`${SETTINGS_PAGE}?done=password`, 303);
  };
}

/** POST `/account/sessions/sign-out-others`. */
export function signOutOthers(ctx: AppContext) {
  return async (c: AccountContext) => {
    const viewer = c.var.viewer;
    const ended = await endUserSessions(ctx, viewer.user.id, viewer.session.idHash);
    logSecurityEvent(ctx.logger, 'sessions.revoked', {
      userId: viewer.user.id,
      requestId: c.get('requestId'),
      sessions: ended,
      reason: 'signed_out_others',
    });
    return c.redirect(`${SETTINGS_PAGE}?done=sessions`, 303);
  };
}
