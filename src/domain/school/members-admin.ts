import { sql } from 'kysely';
import { z } from 'zod';
import { problem, problems } from '../../errors/problem-error.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { likePattern } from '../community/posts.ts';
import { parseValid, withTransaction } from '../kernel/checks.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import { canonicalRoles, parseRoles, type Role, RoleList, serializeRoles } from './roles.ts';

/** A person's membership at the school, with who they are. */
export interface Member {
  id: string;
  userId: string;
  email: string;
  name: string;
  roles: Role[];
  status: 'active' | 'invited';
  invitedByUserId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MemberFilter {
  role?: Role;
  status?: Member['status'];
  /** Substring of email or name. */
  search?: string;
}

function query(db: Db | Tx, schoolId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select([
      'memberships.id',
      'memberships.user_id',
      'memberships.roles',
      'memberships.status',
      'memberships.invited_by_user_id',
      'memberships.created_at',
      'memberships.updated_at',
      'users.email',
      'users.name',
    ])
    .where('memberships.school_id', '=', schoolId);
}

type Row = Awaited<ReturnType<ReturnType<typeof query>['executeTakeFirstOrThrow']>>;

function toMember(r: Row): Member {
  return {
    id: r.id,
    userId: r.user_id,
    email: r.email,
    name: r.name,
    roles: parseRoles(r.roles),
    status: r.status,
    invitedByUserId: r.invited_by_user_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Members of the school, oldest first, by role, status or email/name search. */
export async function listMembers(
  db: Db | Tx,
  schoolId: string,
  filter: MemberFilter = {},
  page: PageParams = {},
): Promise<Page<Member>> {
  let q = query(db, schoolId);
  // Roles are a JSON array of known words, so a quoted-word match is exact.
  if (filter.role) q = q.where('memberships.roles', 'like', `%"${filter.role}"%`);
  if (filter.status) q = q.where('memberships.status', '=', filter.status);
  if (filter.search) {
    const like = likePattern(filter.search);
    q = q.where((eb) =>
      eb.or([
        eb(sql`lower(users.email)`, 'like', sql`${like} escape '\\'`),
        eb(sql`lower(users.name)`, 'like', sql`${like} escape '\\'`),
      ]),
    );
  }
  return mapPage(await paginate(q, page, { table: 'memberships' }), toMember);
}

/** A member of the school by membership id; 404 otherwise. */
export async function getMember(db: Db | Tx, schoolId: string, id: string): Promise<Member> {
  const row = await query(db, schoolId).where('memberships.id', '=', id).executeTakeFirst();
  if (!row) throw problems.notFound('No such member.');
  return toMember(row);
}

/**
 * What an operator sets on a member: only the roles (the person owns their name and email). The
 * admin API's `members.update` body derives from it (admin/operations/members.ts).
 */
export const MemberFields = z.object({ roles: RoleList });
export type MemberInput = z.input<typeof MemberFields>;

// Serialises role changes per school: on PostgreSQL this takes the school row's lock, so two
// concurrent demotions cannot both see "another owner remains" (SQLite writes are serial anyway).
export async function lockSchool(tx: Tx, schoolId: string): Promise<void> {
  await tx.updateTable('schools').set({ updated_at: sql`updated_at` }).where('id', '=', schoolId).execute();
}

async function otherOwners(tx: Tx, schoolId: string, exceptMembershipId: string): Promise<number> {
  const rows = await tx
    .selectFrom('memberships')
    .select('id')
    .where('school_id', '=', schoolId)
    .where('id', '!=', exceptMembershipId)
    .where('status', '=', 'active')
    .where('roles', 'like', '%"owner"%')
    .execute();
  return rows.length;
}

const lastOwner = () =>
  problem('last_owner', {
    detail: 'A school always keeps at least one active owner: make someone else owner first.',
  });

/** Replaces a member's roles; taking `owner` from the last active owner is a 409 `last_owner`. */
export async function changeMemberRoles(
  db: Db | Tx,
  schoolId: string,
  id: string,
  input: MemberInput,
): Promise<Member> {
  const next = canonicalRoles(parseValid(MemberFields, input).roles);
  return withTransaction(db, async (tx) => {
    await lockSchool(tx, schoolId);
    const current = await getMember(tx, schoolId, id);
    if (
      current.roles.includes('owner') &&
      !next.includes('owner') &&
      (await otherOwners(tx, schoolId, id)) === 0
    )
      throw lastOwner();
    await tx
      .updateTable('memberships')
      .set({ roles: serializeRoles(next), updated_at: isoNow() })
      .where('id', '=', id)
      .execute();
    const member = await getMember(tx, schoolId, id);
    await recordEvent(tx, schoolId, 'member.role_changed', {
      member_id: id,
      user_id: member.userId,
      previous_roles: current.roles,
      roles: member.roles,
    });
    return member;
  });
}

/**
 * Removes a person from the school; the last active owner cannot be removed (409 `last_owner`).
 * Their tokens for this school stop working at once: verification reads the membership.
 */
export async function removeMember(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await withTransaction(db, async (tx) => {
    await lockSchool(tx, schoolId);
    const current = await getMember(tx, schoolId, id);
    if (current.roles.includes('owner') && (await otherOwners(tx, schoolId, id)) === 0) throw lastOwner();
    await tx.deleteFrom('memberships').where('id', '=', id).execute();
    await recordEvent(tx, schoolId, 'member.removed', {
      member_id: id,
      user_id: current.userId,
      roles: current.roles,
    });
  });
}
