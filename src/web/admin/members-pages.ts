/**
 * `/admin/<school>/members`: owners and admins list, invite, resend and revoke
 * invitations, and change or remove members' roles. Every change is a CSRF-checked POST answered
 * by a redirect; an invitation link (no SMTP) is shown once after it, never re-created by a refresh.
 */
import { type Context, Hono } from 'hono';
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
import type { AppContext, AppEnv } from '../../http/context.ts';
import { putFlash, takeFlash } from '../../http/flash.ts';
import { messagePage, readForm, sendAreaPage } from '../shared/page-kit.ts';
import { type Area, areaOfRequest, areaPath } from './area.ts';
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

type Handler = (c: Context<AppEnv>, area: Area, scope: ActionScope) => Promise<Response>;

const rolesOf = (fields: URLSearchParams): Role[] => ROLES.filter((r) => fields.getAll('role').includes(r));

/** The members pages, mounted by one line in pages.ts. */
export function createMemberPagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const membersPath = (area: Area, query = '') => areaPath(area.school.id, `/members${query}`);

  // Signed in, owner or admin of the school in the path (else /login or the 403 page).
  const operator =
    (handler: Handler) =>
    async (c: Context<AppEnv>): Promise<Response> => {
      const area = await areaOfRequest(ctx, c);
      if (area instanceof Response) return area;
      const { user } = area.viewer;
      const membership = await findMembership(ctx.db, area.school.id, user.id);
      const actor = { userId: user.id, roles: membership?.roles ?? [], requestId: c.get('requestId') };
      return handler(c, area, { app: ctx, db: ctx.db, schoolId: area.school.id, actor });
    };
  // A POST: its form (CSRF-checked), then the change; a refusal re-renders the page with the reason.
  const change = (
    work: (c: Context<AppEnv>, area: Area, s: ActionScope, f: URLSearchParams) => Promise<string>,
  ) =>
    operator(async (c, area, s) => {
      const fields = await readForm(ctx, c, area.viewer);
      if (fields instanceof Response) return fields;
      try {
        return c.redirect(membersPath(area, `?done=${await work(c, area, s, fields)}`), 303);
      } catch (err) {
        if (!(err instanceof ProblemError) || (err.status >= 500 && err.code !== 'mail_failed')) throw err;
        const detail = err.errors?.length
          ? `${err.detail ?? ''} ${err.errors.map((e) => `${e.field.replace(/^body\./, '')} ${e.message}`).join('; ')}`
          : (err.detail ?? err.title);
        return render(c, area, s, err.status, { error: detail, inviteEmail: fields.get('email') ?? '' });
      }
    });

  async function render(
    c: Context<AppEnv>,
    area: Area,
    s: ActionScope,
    status: number,
    extra: Partial<MembersPageState> = {},
  ): Promise<Response> {
    const members = await listMembers(ctx.db, area.school.id, {}, { limit: 100 });
    const invitations = await listInvitations(ctx.db, area.school.id, {}, { limit: 100 });
    const state: MembersPageState = {
      mailEnabled: ctx.mailer.enabled,
      viewerIsOwner: may(s.actor.roles, 'manage_owners'),
      ...extra,
    };
    const title = `${area.school.name} · Members`;
    return sendAreaPage(c, status, title, membersPage(area, members.data, invitations.data, state));
  }

  // The link rides the session's one-time flash (http/flash.ts); the redirect's code says which
  // notice to show.
  const delivered = async (area: Area, r: { invitation: { email: string } } & Delivery, done: string) => {
    if (r.delivery === 'email') return `${done}-email`;
    await putFlash(ctx, area.viewer.session, INVITATION_LINK, {
      email: r.invitation.email,
      link: r.link,
    } satisfies ShownLink);
    return done;
  };

  app.get(
    '/admin/:school/members',
    operator(async (c, area, s) => {
      const shown = await takeFlash<ShownLink>(ctx, area.viewer.session, INVITATION_LINK);
      const shownReset = await takeFlash<ShownLink>(ctx, area.viewer.session, RESET_LINK);
      return render(c, area, s, 200, { done: c.req.query('done'), shown, shownReset });
    }),
  );

  app.post(
    '/admin/:school/invitations',
    change(async (_c, area, s, f) => {
      const email = f.get('email') ?? '';
      return delivered(area, await invite(s, { email, roles: rolesOf(f) }), 'invited');
    }),
  );

  app.post(
    '/admin/:school/invitations/:id/resend',
    change(async (c, area, s) => delivered(area, await resend(s, c.req.param('id') ?? ''), 'resent')),
  );

  app.post(
    '/admin/:school/invitations/:id/revoke',
    change(async (c, _area, s) => {
      await revoke(s, c.req.param('id') ?? '');
      return 'revoked';
    }),
  );

  app.post(
    '/admin/:school/members/:id/roles',
    change(async (c, _area, s, f) => {
      await changeRoles(s, c.req.param('id') ?? '', rolesOf(f));
      return 'roles';
    }),
  );

  // A password reset link for a member (member-reset.ts has the rule): a page that asks, then the
  // POST, answered by a redirect to the members page, which shows a handed-over link once.
  const resetActor = (c: Context<AppEnv>, s: ActionScope): ResetActor => ({
    schoolId: s.schoolId,
    userId: s.actor.userId,
    roles: s.actor.roles,
    requestId: c.get('requestId'),
  });
  const refusedPage = (c: Context<AppEnv>, area: Area, why: keyof typeof REFUSED) =>
    messagePage(c, 403, 'Password reset not allowed', REFUSED[why], {
      href: membersPath(area),
      label: 'Back to Members',
    });
  const noSuchMember = (c: Context<AppEnv>, area: Area) =>
    messagePage(c, 404, 'No such member', 'This school has no such member.', {
      href: membersPath(area),
      label: 'Back to Members',
    });

  app.get(
    '/admin/:school/members/:id/password-reset',
    operator(async (c, area, s) => {
      try {
        const member = await getMember(ctx.db, area.school.id, c.req.param('id') ?? '');
        const refused = await resetRefusal(ctx, resetActor(c, s), member);
        if (refused) return refusedPage(c, area, refused);
        const page = passwordResetPage(area, member, ctx.mailer.enabled);
        return sendAreaPage(c, 200, `Send a password reset link to ${member.name}?`, page);
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        return noSuchMember(c, area);
      }
    }),
  );

  app.post(
    '/admin/:school/members/:id/password-reset',
    operator(async (c, area, s) => {
      const fields = await readForm(ctx, c, area.viewer);
      if (fields instanceof Response) return fields;
      let result: Awaited<ReturnType<typeof startMemberReset>>;
      try {
        result = await startMemberReset(ctx, resetActor(c, s), c.req.param('id') ?? '');
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        return noSuchMember(c, area);
      }
      if ('refused' in result) return refusedPage(c, area, result.refused);
      if ('mailFailed' in result) {
        return messagePage(
          c,
          502,
          'Email not sent',
          'The password reset email could not be sent (the SMTP server refused it or could not be reached). Try again later.',
          { href: membersPath(area), label: 'Back to Members' },
        );
      }
      if (result.delivery === 'email') return c.redirect(membersPath(area, '?done=reset-email'), 303);
      await putFlash(ctx, area.viewer.session, RESET_LINK, {
        email: result.member.email,
        link: result.link,
      } satisfies ShownLink);
      return c.redirect(membersPath(area, '?done=reset'), 303);
    }),
  );

  app.get(
    '/admin/:school/members/:id/remove',
    operator(async (c, area) => {
      try {
        const member = await getMember(ctx.db, area.school.id, c.req.param('id') ?? '');
        return sendAreaPage(c, 200, `Remove ${member.name}?`, removeMemberPage(area, member));
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        return messagePage(c, 404, 'No such member', 'This school has no such member.', {
          href: membersPath(area),
          label: 'Back to Members',
        });
      }
    }),
  );

  app.post(
    '/admin/:school/members/:id/remove',
    change(async (c, _area, s) => {
      await remove(s, c.req.param('id') ?? '');
      return 'removed';
    }),
  );

  return app;
}
