/**
 * Accepting an invitation: the single-use link is consumed in the same transaction that grants
 * its roles and enrols in its courses, so of two concurrent accepts exactly one joins. Issuing,
 * listing and revoking invitations is invitations.ts.
 */

import { sha256 } from '../../crypto/tokens.ts';
import { problem } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { flag, withTransaction } from '../kernel/checks.ts';
import type { InvitationsTable } from '../kernel/tables.ts';
import { enrollOnJoining } from '../learning/enrollments.ts';
import { addRoles } from './memberships.ts';
import { parseRoles, type Role } from './roles.ts';
import { createUser, findUserByEmail, markEmailProven, takeOverAccount, trustedAt } from './users.ts';

type Row = InvitationsTable;

/** The link was used, revoked, replaced or expired between showing the page and accepting. */
export class InvitationGoneError extends Error {}

/** A person joined through an invitation. */
export interface Acceptance {
  readonly invitationId: string;
  readonly schoolId: string;
  readonly userId: string;
  readonly roles: Role[];
  /** The mailbox's owner took over an existing account: the caller ends its sessions and grants. */
  readonly tookOver: boolean;
}

// Single use: one conditional UPDATE, so of two concurrent accepts exactly one sees a row.
async function consume(tx: Tx, token: string, email: string, userId: string): Promise<Row> {
  const now = isoNow();
  const result = await tx
    .updateTable('invitations')
    .set({ accepted_at: now, accepted_user_id: userId, updated_at: now })
    .where('token_hash', '=', sha256(token))
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new InvitationGoneError('invitation no longer open');
  return tx
    .selectFrom('invitations')
    .selectAll()
    .where('token_hash', '=', sha256(token))
    .executeTakeFirstOrThrow();
}

async function join(tx: Tx, row: Row, userId: string, tookOver = false): Promise<Acceptance> {
  const roles = parseRoles(row.roles);
  // Someone who became a member meanwhile (enrolled as a student) keeps their roles and gains these.
  await addRoles(tx, row.school_id, userId, roles);
  await enrollOnJoining(tx, row.school_id, userId, JSON.parse(row.course_ids) as string[]);
  return { invitationId: row.id, schoolId: row.school_id, userId, roles, tookOver };
}

/** The account's email is not proven, and this link cannot prove it (it went to the inviter). */
export class UnprovenEmailError extends Error {}

/**
 * An existing account accepts: the signed-in user must own the invited email. An emailed link
 * proves the mailbox; an account whose email is unproven joins another school only that way.
 */
export async function acceptInvitation(
  db: Db | Tx,
  token: string,
  user: { id: string; email: string; unverified_school_id: string | null },
): Promise<Acceptance> {
  return withTransaction(db, async (tx) => {
    const row = await consume(tx, token, user.email, user.id);
    if (flag(row.emailed)) await markEmailProven(tx, user.id);
    else if (!trustedAt(user, row.school_id)) throw new UnprovenEmailError('email not proven');
    return join(tx, row, user.id);
  });
}

/**
 * Someone without a usable account accepts with a name and password. No account: it is made,
 * trusted at this school only unless the link was emailed. An account made without a password,
 * or one whose email is unproven, is taken over when the link was emailed (the mailbox's owner
 * is here). Any other account is a 409 `email_taken`: its owner signs in and accepts.
 */
export async function acceptAsNewPerson(
  db: Db | Tx,
  token: string,
  input: { email: string; name: string; passwordHash: string },
): Promise<Acceptance> {
  return withTransaction(db, async (tx) => {
    const open = await openRow(tx, token);
    const emailed = flag(open.emailed);
    const existing = await findUserByEmail(tx, input.email);
    if (!existing) {
      const user = await createUser(tx, {
        ...input,
        unverifiedSchoolId: emailed ? null : open.school_id,
      });
      return join(tx, await consume(tx, token, user.email, user.id), user.id);
    }
    const unusable = existing.password_hash === null || existing.unverified_school_id !== null;
    if (!emailed || !unusable) {
      throw problem('email_taken', { detail: 'A user with this email already exists.' });
    }
    await takeOverAccount(tx, existing.id, input);
    return join(tx, await consume(tx, token, existing.email, existing.id), existing.id, true);
  });
}

// The open invitation a token names, read before the account is decided.
async function openRow(tx: Tx, token: string): Promise<Row> {
  const row = await tx
    .selectFrom('invitations')
    .selectAll()
    .where('token_hash', '=', sha256(token))
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', isoNow())
    .executeTakeFirst();
  if (!row) throw new InvitationGoneError('invitation no longer open');
  return row;
}
