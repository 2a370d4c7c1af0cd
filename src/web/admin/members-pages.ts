/**
 * `/admin/<school>/members`: owners and admins list, invite, resend and revoke
 * invitations, and change or remove members' roles. Every change is a CSRF-checked POST answered
 * by a redirect; an invitation link (no SMTP) is shown once after it, never re-created by a refresh.
 */
import { Hono } from 'hono';
import {
  type ActionScope,
  changeRoles,
  type Delivery,
  invite,
  remove,
  resend,
  revoke,
} from '../../admin/member-actions.ts';
import { listInvitations } from '../../domain/school/invitations.ts';
import { getMember, listMembers } from '../../domain/school/members-admin.ts';
import { findMembership } from '../../domain/school/memberships.ts';
import { ROLES, type Role } from '../../domain/school/roles.ts';
import { may } from '../../domain/school/standing.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import { putFlash, takeFlash } from '../../http/flash.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { PageRefusal } from '../shared/refusal.ts';
import { type Area, areaPath } from './area.ts';
import { type ConsoleContext, type ConsoleEnv, operators, postedForm } from './console-env.ts';
import { type ResetActor, resetRefusal, startMemberReset } from './member-reset.ts';
import {
  type MembersPageState,
  membersPage,
  passwordResetPage,
  removeMemberPage,
  type ShownLink,
} from './members-views.ts';

/** The flash that carries an invitation link from the form to the page it redirects to. */
const INVITATION_LINK = 'invitation-link';
/** The flash that carries a password reset link (no SMTP) to the members page, once. */
const RESET_LINK = 'password-reset-link';

/** Why an operator may not start a reset, as the refusal page says it. */
const REFUSED = {
  elsewhere:
    'This person’s account is also used outside this school, so only they can reset its password: with “Forgot password?” on the sign-in page.',
  owner_required: 'Only an owner can send a password reset link to an owner.',
} as const;

const rolesOf = (fields: URLSearchParams): Role[] => ROLES.filter((r) => fields.getAll('role').includes(r));

const membersPath = (area: Area, query = '') => areaPath(area.school.id, `/members${query}`);
const backToMembers = (area: Area) => ({ links: [{ href: membersPath(area), label: 'Back to Members' }] });

/** The person in the console as the member actions see them: their school, user and roles there. */
async function scopeOf(c: ConsoleContext): Promise<ActionScope> {
  const { area, app } = c.var;
  const { user } = area.viewer;
  const membership = await findMembership(app.db, area.school.id, user.id);
  const actor = { userId: user.id, roles: membership?.roles ?? [], requestId: c.get('requestId') };
  return { app, db: app.db, schoolId: area.school.id, actor };
}

async function render(
  c: ConsoleContext,
  s: ActionScope,
  status: number,
  extra: Partial<MembersPageState> = {},
): Promise<Response> {
  const { area, app } = c.var;
  const members = await listMembers(app.db, area.school.id, {}, { limit: 100 });
  const invitations = await listInvitations(app.db, area.school.id, {}, { limit: 100 });
  const state: MembersPageState = {
    mailEnabled: app.mailer.enabled,
    viewerIsOwner: may(s.actor.roles, 'manage_owners'),
    ...extra,
  };
  const title = `${area.school.name} · Members`;
  return sendAreaPage(c, status, title, membersPage(area, members.data, invitations.data, state));
}

/**
 * A change of the members page: the work, then a redirect with its notice; a refusal of the
 * member actions re-renders the page with the reason.
 */
function change(work: (c: ConsoleContext, s: ActionScope, f: URLSearchParams) => Promise<string>) {
  return async (c: ConsoleContext): Promise<Response> => {
    const fields = postedForm(c);
    const s = await scopeOf(c);
    try {
      return c.redirect(membersPath(c.var.area, `?done=${await work(c, s, fields)}`), 303);
    } catch (err) {
      if (!(err instanceof ProblemError) || (err.status >= 500 && err.code !== 'mail_failed')) throw err;
      const detail = err.errors?.length
        ? `${err.detail ?? ''} ${err.errors.map((e) => `${e.field.replace(/^body\./, '')} ${e.message}`).join('; ')}`
        : (err.detail ?? err.title);
      return render(c, s, err.status, { error: detail, inviteEmail: fields.get('email') ?? '' });
    }
  };
}

// The link rides the session's one-time flash (http/flash.ts); the redirect's code says which
// notice to show.
async function delivered(
  c: ConsoleContext,
  r: { invitation: { email: string } } & Delivery,
  done: string,
): Promise<string> {
  if (r.delivery === 'email') return `${done}-email`;
  await putFlash(c.var.app, c.var.area.viewer.session, INVITATION_LINK, {
    email: r.invitation.email,
    link: r.link,
  } satisfies ShownLink);
  return done;
}

async function showMembers(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const shown = await takeFlash<ShownLink>(app, area.viewer.session, INVITATION_LINK);
  const shownReset = await takeFlash<ShownLink>(app, area.viewer.session, RESET_LINK);
  return render(c, await scopeOf(c), 200, { done: c.req.query('done'), shown, shownReset });
}

const inviteMember = change(async (c, s, f) =>
  delivered(c, await invite(s, { email: f.get('email') ?? '', roles: rolesOf(f) }), 'invited'),
);
const resendInvitation = change(async (c, s) =>
  delivered(c, await resend(s, c.req.param('id') ?? ''), 'resent'),
);
const revokeInvitation = change(async (c, s) => {
  await revoke(s, c.req.param('id') ?? '');
  return 'revoked';
});
const changeMemberRoles = change(async (c, s, f) => {
  await changeRoles(s, c.req.param('id') ?? '', rolesOf(f));
  return 'roles';
});
const removeMember = change(async (c, s) => {
  await remove(s, c.req.param('id') ?? '');
  return 'removed';
});

const resetActor = (c: ConsoleContext, s: ActionScope): ResetActor => ({
  schoolId: s.schoolId,
  userId: s.actor.userId,
  roles: s.actor.roles,
  requestId: c.get('requestId'),
});
const resetRefused = (area: Area, why: keyof typeof REFUSED) =>
  new PageRefusal(403, 'Password reset not allowed', REFUSED[why], backToMembers(area));
const noSuchMember = (area: Area) =>
  new PageRefusal(404, 'No such member', 'This school has no such member.', backToMembers(area));

/** The member of the path, or the 404 refusal. */
async function memberOf(c: ConsoleContext) {
  const { area, app } = c.var;
  return getMember(app.db, area.school.id, c.req.param('id') ?? '').catch((err: unknown) => {
    throw err instanceof ProblemError ? noSuchMember(area) : err;
  });
}

// A password reset link for a member (member-reset.ts has the rule): a page that asks, then the
// POST, answered by a redirect to the members page, which shows a handed-over link once.
async function askPasswordReset(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const member = await memberOf(c);
  const refused = await resetRefusal(app, resetActor(c, await scopeOf(c)), member);
  if (refused) throw resetRefused(area, refused);
  const page = passwordResetPage(area, member, app.mailer.enabled);
  return sendAreaPage(c, 200, `Send a password reset link to ${member.name}?`, page);
}

async function sendPasswordReset(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const actor = resetActor(c, await scopeOf(c));
  const result = await startMemberReset(app, actor, c.req.param('id') ?? '').catch((err: unknown) => {
    throw err instanceof ProblemError ? noSuchMember(area) : err;
  });
  if ('refused' in result) throw resetRefused(area, result.refused);
  if ('mailFailed' in result) {
    throw new PageRefusal(
      502,
      'Email not sent',
      'The password reset email could not be sent (the SMTP server refused it or could not be reached). Try again later.',
      backToMembers(area),
    );
  }
  if (result.delivery === 'email') return c.redirect(membersPath(area, '?done=reset-email'), 303);
  await putFlash(app, area.viewer.session, RESET_LINK, {
    email: result.member.email,
    link: result.link,
  } satisfies ShownLink);
  return c.redirect(membersPath(area, '?done=reset'), 303);
}

async function askRemoveMember(c: ConsoleContext): Promise<Response> {
  const member = await memberOf(c);
  return sendAreaPage(c, 200, `Remove ${member.name}?`, removeMemberPage(c.var.area, member));
}

/** The members pages. */
export function memberRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/:school/members', operators, showMembers);
  app.post('/:school/invitations', operators, inviteMember);
  app.post('/:school/invitations/:id/resend', operators, resendInvitation);
  app.post('/:school/invitations/:id/revoke', operators, revokeInvitation);
  app.post('/:school/members/:id/roles', operators, changeMemberRoles);
  app.get('/:school/members/:id/password-reset', operators, askPasswordReset);
  app.post('/:school/members/:id/password-reset', operators, sendPasswordReset);
  app.get('/:school/members/:id/remove', operators, askRemoveMember);
  app.post('/:school/members/:id/remove', operators, removeMember);
  return app;
}
