/**
 * An operator starts a password reset for a member: the same one-hour, single-use link as
 * "Forgot password?" (domain/school/password-resets.ts, consumed by web/recovery/), emailed when
 * SMTP is configured, else handed to the operator once.
 *
 * Who may (security.md, "Who may start a password reset for someone"): the link sets the password
 * of an account, and an account is shared by every school its person belongs to. So a school's
 * owner or admin may start one only for an account that belongs to their school alone (the same
 * check as lifting a lock, admin/operations/member-locks.ts), and only an owner for an owner.
 */
import { getMember, type Member } from '../../domain/school/members-admin.ts';
import { belongsElsewhere } from '../../domain/school/memberships.ts';
import { createPasswordReset } from '../../domain/school/password-resets.ts';
import { may } from '../../domain/school/standing.ts';
import { findUserById } from '../../domain/school/users.ts';
import type { AppContext } from '../../http/context.ts';
import { logSecurityEvent } from '../../http/security-log.ts';
import { resetMail } from '../recovery/mails.ts';

/** Who asks: a signed-in operator of the school, with their roles there. */
export interface ResetActor {
  readonly schoolId: string;
  readonly userId: string;
  readonly roles: readonly string[];
  readonly requestId?: string;
}

/** Why a reset may not be started for this member by this operator. */
export type ResetRefusal = 'elsewhere' | 'owner_required';

/** Whether the actor may start a reset for the member: undefined when they may. */
export async function resetRefusal(
  ctx: AppContext,
  actor: ResetActor,
  member: Member,
): Promise<ResetRefusal | undefined> {
  if (member.roles.includes('owner') && !may(actor.roles, 'manage_owners')) return 'owner_required';
  if (await belongsElsewhere(ctx.db, actor.schoolId, member.userId)) return 'elsewhere';
  return undefined;
}

/** How the link went: emailed to the member, or to hand over (shown once, never stored or logged). */
export type ResetDelivery =
  | { readonly delivery: 'email' }
  | { readonly delivery: 'link'; readonly link: string }
  | { readonly refused: ResetRefusal }
  | { readonly mailFailed: true };

/** Starts a reset for a member of the actor's school (getMember: another school's is a 404). */
export async function startMemberReset(
  ctx: AppContext,
  actor: ResetActor,
  memberId: string,
): Promise<{ member: Member } & ResetDelivery> {
  const member = await getMember(ctx.db, actor.schoolId, memberId);
  const refused = await resetRefusal(ctx, actor, member);
  if (refused) return { member, refused };
  const user = await findUserById(ctx.db, member.userId);
  if (!user) return { member, refused: 'elsewhere' };
  const token = await createPasswordReset(ctx.db, user.id);
  const link = new URL(`/password-reset/${token}`, ctx.config.baseUrl).toString();
  const delivery = ctx.mailer.enabled ? 'email' : 'link';
  logSecurityEvent(ctx.logger, 'password.reset_requested', {
    userId: user.id,
    schoolId: actor.schoolId,
    actorUserId: actor.userId,
    requestId: actor.requestId,
    delivery,
  });
  if (delivery === 'link') return { member, delivery, link };
  try {
    await ctx.mailer.send(await resetMail(ctx, user, link));
  } catch (err) {
    ctx.logger.warn({ userId: user.id, error: (err as Error).message }, 'password reset email not sent');
    return { member, mailFailed: true };
  }
  return { member, delivery };
}
