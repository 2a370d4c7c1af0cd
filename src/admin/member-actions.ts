/**
 * What an operator does to people, shared by the admin REST API, its MCP tools and
 * the `/admin` pages: the owner rule, delivering the invitation (mail, or the link shown once),
 * and the security log line of each change. The rules about the data stay in the domain.
 */
import {
  createInvitation,
  getInvitation,
  type Invitation,
  type InvitationInput,
  type IssuedInvitation,
  resendInvitation,
  revokeInvitation,
} from '../domain/school/invitations.ts';
import {
  changeMemberRoles,
  getMember,
  type Member,
  type MemberInput,
  removeMember,
} from '../domain/school/members-admin.ts';
import { findSchoolById } from '../domain/school/schools.ts';
import { may } from '../domain/school/standing.ts';
import { findUserById } from '../domain/school/users.ts';
import { problem, problems } from '../errors/problem-error.ts';
import type { AppContext } from '../http/context.ts';
import { type LogOnlyEvent, logSecurityEvent } from '../http/security-log.ts';
import type { Db, Tx } from '../store/database.ts';
import type { OperationContext } from './define-operation.ts';
import { invitationMail } from './invitation-mail.ts';

/** Who acts: an operator of the school, through a token (clientId) or a page (no client). */
interface Actor {
  readonly userId: string;
  readonly roles: readonly string[];
  readonly clientId?: string | null;
  readonly requestId?: string;
}

/** Where the work runs: the app's services, and a database handle that may be a transaction. */
export interface ActionScope {
  readonly app: AppContext;
  readonly db: Db | Tx;
  readonly schoolId: string;
  readonly actor: Actor;
}

/** The scope of an admin operation: its token's person, roles and client. */
export function actionScope(ctx: OperationContext): ActionScope {
  const { userId, roles, clientId } = ctx.principal;
  return { app: ctx.app, db: ctx.db, schoolId: ctx.schoolId, actor: { userId, roles, clientId } };
}

/**
 * How the person gets the link: by email (SMTP_URL set), or `link` returned once to the operator
 * who asked (never stored, never logged).
 */
export type Delivery = { readonly delivery: 'email' } | { readonly delivery: 'link'; readonly link: string };

// Only an owner may make someone an owner or change an owner's roles: an admin must not be
// able to promote themselves, or demote the people above them.
function requireOwnerFor(actor: Actor, involvesOwner: boolean): void {
  if (involvesOwner && !may(actor.roles, 'manage_owners')) {
    throw problems.forbidden('Only an owner can grant, change or remove the owner role.', 'owner_required');
  }
}

// A role change and a removal are domain events: the outbox logs them (events/outbox.ts).
function log(s: ActionScope, event: LogOnlyEvent, fields: Record<string, unknown>): void {
  logSecurityEvent(s.app.logger, event, {
    schoolId: s.schoolId,
    actorUserId: s.actor.userId,
    clientId: s.actor.clientId ?? null,
    requestId: s.actor.requestId,
    ...fields,
  });
}

/** The link of an invitation token: `BASE_URL/invitations/<token>`. */
export function invitationLink(app: AppContext, token: string): string {
  return `${app.config.baseUrl}/invitations/${token}`;
}

async function deliver(s: ActionScope, issued: IssuedInvitation): Promise<Delivery> {
  const link = invitationLink(s.app, issued.token);
  if (!s.app.mailer.enabled) return { delivery: 'link', link };
  const school = await findSchoolById(s.db, s.schoolId);
  const inviter = await findUserById(s.db, s.actor.userId);
  const message = await invitationMail({
    to: issued.invitation.email,
    schoolName: school?.name ?? 'Lectern',
    inviterName: inviter?.name ?? null,
    roles: issued.invitation.roles,
    link,
    expiresAt: issued.invitation.expiresAt,
  });
  try {
    await s.app.mailer.send(message);
  } catch (err) {
    s.app.logger.warn(
      { invitationId: issued.invitation.id, error: (err as Error).message },
      'invitation email not sent',
    );
    throw problem('mail_failed', {
      detail:
        'The invitation email could not be sent (the SMTP server refused it or could not be reached). Check the invitations list and resend it.',
    });
  }
  return { delivery: 'email' };
}

/** Invites a person (owner invitations only by an owner) and delivers the link. */
export async function invite(
  s: ActionScope,
  input: InvitationInput,
): Promise<{ invitation: Invitation } & Delivery> {
  requireOwnerFor(s.actor, input.roles.includes('owner'));
  const issued = await createInvitation(s.db, s.schoolId, {
    ...input,
    invitedByUserId: s.actor.userId,
    emailed: s.app.mailer.enabled,
  });
  const delivery = await deliver(s, issued);
  log(s, 'invitation.created', { invitationId: issued.invitation.id, roles: issued.invitation.roles });
  return { invitation: issued.invitation, ...delivery };
}

/** A new link for an invitation (the old one dies), delivered like the first. */
export async function resend(s: ActionScope, id: string): Promise<{ invitation: Invitation } & Delivery> {
  requireOwnerFor(s.actor, (await getInvitation(s.db, s.schoolId, id)).roles.includes('owner'));
  const issued = await resendInvitation(s.db, s.schoolId, id, s.app.mailer.enabled);
  const delivery = await deliver(s, issued);
  log(s, 'invitation.resent', { invitationId: id });
  return { invitation: issued.invitation, ...delivery };
}

/** Revokes an invitation: its link stops working. */
export async function revoke(s: ActionScope, id: string): Promise<Invitation> {
  requireOwnerFor(s.actor, (await getInvitation(s.db, s.schoolId, id)).roles.includes('owner'));
  const invitation = await revokeInvitation(s.db, s.schoolId, id);
  log(s, 'invitation.revoked', { invitationId: id });
  return invitation;
}

/** Replaces a member's roles (the owner role only by an owner; never the last owner's). */
export async function changeRoles(
  s: ActionScope,
  memberId: string,
  roles: MemberInput['roles'],
): Promise<Member> {
  const current = await getMember(s.db, s.schoolId, memberId);
  requireOwnerFor(s.actor, current.roles.includes('owner') || roles.includes('owner'));
  const updated = await changeMemberRoles(s.db, s.schoolId, memberId, { roles });
  return updated;
}

/** Removes a member from the school (an owner only by an owner; never the last owner). */
export async function remove(s: ActionScope, memberId: string): Promise<void> {
  const current = await getMember(s.db, s.schoolId, memberId);
  requireOwnerFor(s.actor, current.roles.includes('owner'));
  await removeMember(s.db, s.schoolId, memberId);
}
