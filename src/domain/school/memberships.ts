import { newId } from '../../crypto/ids.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import { preparedRead } from '../../store/prepared.ts';
import { isoNow } from '../../store/time.ts';
import { parseRoles, type Role, serializeRoles } from './roles.ts';

/** A person's standing at one school. */
export interface Membership {
  id: string;
  schoolId: string;
  userId: string;
  roles: Role[];
  status: 'active' | 'invited';
}

function toMembership(row: {
  id: string;
  school_id: string;
  user_id: string;
  roles: string;
  status: string;
}): Membership {
  return {
    id: row.id,
    schoolId: row.school_id,
    userId: row.user_id,
    roles: parseRoles(row.roles),
    status: row.status as Membership['status'],
  };
}

// Read on hot paths (claims without known roles, the Account API): compiled once, named on PostgreSQL.
const membershipOf = preparedRead((db, arg) =>
  db
    .selectFrom('memberships')
    .select(['id', 'school_id', 'user_id', 'roles', 'status'])
    .where('school_id', '=', arg(0))
    .where('user_id', '=', arg(1)),
);

/** The user's membership at a school, or undefined. */
export async function findMembership(
  db: Db | Tx,
  schoolId: string,
  userId: string,
): Promise<Membership | undefined> {
  const row = (await membershipOf(db, schoolId, userId))[0];
  return row ? toMembership(row) : undefined;
}

/**
 * The user id of the school's member with this email (stored form), or undefined: one query
 * whether or not the email has an account, so the answer says nothing about other schools.
 */
export async function findMemberIdByEmail(
  db: Db | Tx,
  schoolId: string,
  email: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select('users.id')
    .where('memberships.school_id', '=', schoolId)
    .where('users.email', '=', email)
    .executeTakeFirst();
  return row?.id;
}

/** Whether the user belongs to any school but this one. */
export async function belongsElsewhere(db: Db | Tx, schoolId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('memberships')
    .select('id')
    .where('user_id', '=', userId)
    .where('school_id', '!=', schoolId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Every school the user belongs to, with its name, ordered by school name. */
export async function listMembershipsOfUser(
  db: Db | Tx,
  userId: string,
): Promise<Array<Membership & { schoolName: string; subdomain: string }>> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('schools', 'schools.id', 'memberships.school_id')
    .select([
      'memberships.id',
      'memberships.school_id',
      'memberships.user_id',
      'memberships.roles',
      'memberships.status',
      'schools.name as school_name',
      'schools.subdomain',
    ])
    .where('memberships.user_id', '=', userId)
    .orderBy('schools.name')
    .execute();
  return rows.map((r) => ({ ...toMembership(r), schoolName: r.school_name, subdomain: r.subdomain }));
}

/**
 * Makes the user a member of the school with these roles unless they already are one there:
 * `created` says which. INSERT … ON CONFLICT DO NOTHING on (school_id, user_id), so concurrent
 * calls for one person make one membership and never fail on the unique key.
 */
export async function ensureMembership(
  db: Db | Tx,
  schoolId: string,
  userId: string,
  roles: readonly Role[],
  options: { status?: Membership['status']; invitedByUserId?: string | null } = {},
): Promise<{ membership: Membership; created: boolean }> {
  const now = isoNow();
  const row = {
    id: newId('mem'),
    school_id: schoolId,
    user_id: userId,
    roles: serializeRoles(roles),
    status: options.status ?? ('active' as const),
    invited_by_user_id: options.invitedByUserId ?? null,
    created_at: now,
    updated_at: now,
  };
  const result = await db
    .insertInto('memberships')
    .values(row)
    .onConflict((oc) => oc.columns(['school_id', 'user_id']).doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) === 1) {
    const membership = toMembership(row);
    // Someone joins when an active membership starts. An `invited` membership is no invitation:
    // invitations.ts records `member.invited`, with the invitation a receiver can follow.
    if (membership.status === 'active') {
      await recordEvent(db, schoolId, 'member.joined', {
        member_id: membership.id,
        user_id: userId,
        roles: membership.roles,
        invited_by_user_id: row.invited_by_user_id,
      });
    }
    return { membership, created: true };
  }
  const existing = await findMembership(db, schoolId, userId);
  if (!existing) throw new Error('membership insert conflicted but none exists');
  return { membership: existing, created: false };
}

/** Grants roles at a school, adding to any the user already holds there. */
export async function addRoles(
  db: Db | Tx,
  schoolId: string,
  userId: string,
  roles: readonly Role[],
): Promise<Membership> {
  const { membership, created } = await ensureMembership(db, schoolId, userId, roles);
  if (created) return membership;
  const merged = serializeRoles([...membership.roles, ...roles]);
  await db
    .updateTable('memberships')
    .set({ roles: merged, updated_at: isoNow() })
    .where('id', '=', membership.id)
    .execute();
  return { ...membership, roles: parseRoles(merged) };
}
