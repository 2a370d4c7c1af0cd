/**
 * Invitations: how a person comes to hold a role at a school. Inviting creates no
 * user and no membership; the role applies only when the person opens the single-use link and
 * accepts (a new person by setting a name and password, an existing one signed in as that
 * email). What the inviter learns never depends on whether the email has an account elsewhere.
 */
import { sql } from 'kysely';
import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { isTokenShaped, randomToken, safeEqual, sha256 } from '../../crypto/tokens.ts';
import { problem, problems } from '../../errors/problem-error.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoIn, isoNow, nowMs } from '../../store/time.ts';
import { likePattern } from '../community/posts.ts';
import { parseValid, withTransaction } from '../kernel/checks.ts';
import { declare } from '../kernel/field-meta.ts';
import { Email, Id, Text } from '../kernel/fields.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { InvitationsTable } from '../kernel/tables.ts';
import { lockSchool } from './members-admin.ts';
import { findMemberIdByEmail } from './memberships.ts';
import { canonicalRoles, parseRoles, type Role, RoleList, serializeRoles } from './roles.ts';
import { normalizeEmail } from './users.ts';

/** An invitation's link works for 7 days (docs/api.md, docs/decisions.md); resending starts a new 7 days. */
export const INVITATION_LIFETIME_SECONDS = 7 * 24 * 3600;

export const INVITATION_STATUSES = ['pending', 'accepted', 'expired', 'revoked'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

/** An invitation as the school's operators see it: nothing about the person's other schools. */
export interface Invitation {
  id: string;
  email: string;
  roles: Role[];
  status: InvitationStatus;
  invitedByUserId: string | null;
  /** Courses the person is enrolled in (lifetime access) when they accept. */
  courseIds: string[];
  expiresAt: string;
  acceptedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * What an invitation is made of: the person's email and the roles they get on accepting. `name`
 * is still accepted (the admin API took it before invitations) and ignored: the person chooses
 * their own name when they join. `members.invite`'s body derives from these fields.
 */
export const InvitationFields = z.object({
  email: Email,
  roles: RoleList,
  courseIds: z
    .array(Id)
    .max(50)
    .optional()
    .describe('Courses of this school the person is enrolled in (lifetime access) when they accept.'),
  name: declare(Text(120), { ignored: true })
    .optional()
    .describe('Accepted for compatibility and ignored: the person chooses their own name when they join.'),
});
export type InvitationInput = z.input<typeof InvitationFields>;

/** A new or resent invitation and its link's token: shown once, stored only as a hash. */
export interface IssuedInvitation {
  readonly invitation: Invitation;
  readonly token: string;
}

type Row = InvitationsTable;

function statusOf(r: Row, now = isoNow()): InvitationStatus {
  if (r.revoked_at) return 'revoked';
  if (r.accepted_at) return 'accepted';
  return r.expires_at <= now ? 'expired' : 'pending';
}

function toInvitation(r: Row): Invitation {
  return {
    id: r.id,
    email: r.email,
    roles: parseRoles(r.roles),
    status: statusOf(r),
    invitedByUserId: r.invited_by_user_id,
    courseIds: JSON.parse(r.course_ids) as string[],
    expiresAt: r.expires_at,
    acceptedAt: r.accepted_at,
    revokedAt: r.revoked_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function query(db: Db | Tx, schoolId: string) {
  return db.selectFrom('invitations').selectAll().where('school_id', '=', schoolId);
}

/** The school's invitations, oldest first, by status or an email search. */
export async function listInvitations(
  db: Db | Tx,
  schoolId: string,
  filter: { status?: InvitationStatus; search?: string } = {},
  page: PageParams = {},
): Promise<Page<Invitation>> {
  let q = query(db, schoolId);
  const now = isoNow();
  switch (filter.status) {
    case 'revoked':
      q = q.where('revoked_at', 'is not', null);
      break;
    case 'accepted':
      q = q.where('accepted_at', 'is not', null);
      break;
    case 'pending':
    case 'expired':
      q = q
        .where('revoked_at', 'is', null)
        .where('accepted_at', 'is', null)
        .where('expires_at', filter.status === 'pending' ? '>' : '<=', now);
      break;
  }
  if (filter.search) {
    q = q.where(sql`lower(email)`, 'like', sql`${likePattern(filter.search)} escape '\\'`);
  }
  return mapPage(await paginate(q, page, { table: 'invitations' }), toInvitation);
}

/** One invitation of the school; 404 otherwise (another school's id included). */
export async function getInvitation(db: Db | Tx, schoolId: string, id: string): Promise<Invitation> {
  const row = await query(db, schoolId).where('id', '=', id).executeTakeFirst();
  if (!row) throw problems.notFound('No such invitation.');
  return toInvitation(row);
}

// Only what this school already knows decides the answer: its own members and invitations.
async function refuseDuplicate(tx: Tx, schoolId: string, email: string): Promise<void> {
  if (await findMemberIdByEmail(tx, schoolId, email)) {
    throw problem('already_member', {
      detail: `${email} already belongs to this school; change their roles instead.`,
    });
  }
  const open = await query(tx, schoolId)
    .where('email', '=', email)
    .where('revoked_at', 'is', null)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', isoNow())
    .executeTakeFirst();
  if (open) {
    throw problem('invitation_pending', {
      detail: `${email} already has a pending invitation (${open.id}); resend or revoke it instead.`,
    });
  }
}

// The courses an invitation enrols in: each a course of this school, each once.
async function schoolCourses(tx: Tx, schoolId: string, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const found = await tx
    .selectFrom('courses')
    .select('id')
    .where('school_id', '=', schoolId)
    .where('id', 'in', unique)
    .execute();
  const known = new Set(found.map((r) => r.id));
  const missing = unique.filter((id) => !known.has(id));
  if (missing.length > 0) {
    throw problems.validation(
      missing.map(() => ({ field: 'courseIds', message: 'names no course of this school' })),
      `No such course at this school: ${missing.join(', ')}.`,
    );
  }
  return unique;
}

/**
 * Invites a person by email with these roles (and courses to enrol in): a pending invitation,
 * nothing else. Someone already at the school is a 409 `already_member`, a pending invitation a
 * 409 `invitation_pending`; an account at other schools changes nothing in the answer.
 * `emailed`: the link goes to the invited mailbox (SMTP), not to the inviter.
 */
export async function createInvitation(
  db: Db | Tx,
  schoolId: string,
  input: InvitationInput & { invitedByUserId: string | null; emailed: boolean },
): Promise<IssuedInvitation> {
  const parsed = parseValid(InvitationFields, input);
  const email = normalizeEmail(parsed.email);
  const roles = canonicalRoles(parsed.roles);
  return withTransaction(db, async (tx) => {
    // One invitation per person at a time, even for concurrent invites (the school row's lock).
    await lockSchool(tx, schoolId);
    await refuseDuplicate(tx, schoolId, email);
    const courseIds = await schoolCourses(tx, schoolId, parsed.courseIds ?? []);
    const token = randomToken();
    // One instant for both, so the lifetime is exactly 7 days.
    const at = nowMs();
    const now = isoNow(at);
    const row: Row = {
      id: newId('inv'),
      school_id: schoolId,
      email,
      roles: serializeRoles(roles),
      token_hash: sha256(token),
      invited_by_user_id: input.invitedByUserId,
      expires_at: isoIn(INVITATION_LIFETIME_SECONDS, at),
      accepted_at: null,
      accepted_user_id: null,
      revoked_at: null,
      emailed: input.emailed ? 1 : 0,
      course_ids: JSON.stringify(courseIds),
      created_at: now,
      updated_at: now,
    };
    await tx.insertInto('invitations').values(row).execute();
    await recordEvent(tx, schoolId, 'member.invited', {
      invitation_id: row.id,
      email,
      roles,
      invited_by_user_id: row.invited_by_user_id,
      expires_at: row.expires_at,
    });
    return { invitation: toInvitation(row), token };
  });
}

const closed = (invitation: Invitation) =>
  problem('invitation_closed', {
    detail: `This invitation was ${invitation.status}; invite the person again instead.`,
  });

/** A new link for a pending or expired invitation (7 more days); the old link stops working. */
export async function resendInvitation(
  db: Db | Tx,
  schoolId: string,
  id: string,
  emailed: boolean,
): Promise<IssuedInvitation> {
  return withTransaction(db, async (tx) => {
    const current = await getInvitation(tx, schoolId, id);
    if (current.status === 'accepted' || current.status === 'revoked') throw closed(current);
    const token = randomToken();
    const at = nowMs();
    await tx
      .updateTable('invitations')
      .set({
        token_hash: sha256(token),
        emailed: emailed ? 1 : 0,
        expires_at: isoIn(INVITATION_LIFETIME_SECONDS, at),
        updated_at: isoNow(at),
      })
      .where('school_id', '=', schoolId)
      .where('id', '=', id)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .execute();
    return { invitation: await getInvitation(tx, schoolId, id), token };
  });
}

/** Revokes an invitation that was not accepted; revoking twice answers the same. */
export async function revokeInvitation(db: Db | Tx, schoolId: string, id: string): Promise<Invitation> {
  return withTransaction(db, async (tx) => {
    const current = await getInvitation(tx, schoolId, id);
    if (current.status === 'accepted') throw closed(current);
    if (current.status === 'revoked') return current;
    const now = isoNow();
    await tx
      .updateTable('invitations')
      .set({ revoked_at: now, updated_at: now })
      .where('school_id', '=', schoolId)
      .where('id', '=', id)
      .where('accepted_at', 'is', null)
      .execute();
    return getInvitation(tx, schoolId, id);
  });
}

/**
 * What the holder of a link may see: the invitation, its school's name and who invited. Never
 * whether the email has an account: without SMTP the holder may be the inviter.
 */
export interface InvitationByToken {
  readonly invitation: Invitation;
  readonly schoolId: string;
  readonly schoolName: string;
  readonly inviterName: string | null;
}

/** The invitation a link's token names, or undefined for a token that was never issued (or replaced). */
export async function findInvitationByToken(
  db: Db | Tx,
  token: string,
): Promise<InvitationByToken | undefined> {
  if (!isTokenShaped(token)) return undefined;
  const hash = sha256(token);
  const row = await db
    .selectFrom('invitations')
    .innerJoin('schools', 'schools.id', 'invitations.school_id')
    .leftJoin('users as inviter', 'inviter.id', 'invitations.invited_by_user_id')
    .selectAll('invitations')
    .select(['schools.name as school_name', 'inviter.name as inviter_name'])
    .where('invitations.token_hash', '=', hash)
    .executeTakeFirst();
  // The index found the row by the hash; compare again in constant time all the same.
  if (!row || !safeEqual(row.token_hash, hash)) return undefined;
  return {
    invitation: toInvitation(row),
    schoolId: row.school_id,
    schoolName: row.school_name,
    inviterName: row.inviter_name ?? null,
  };
}
