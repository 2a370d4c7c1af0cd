import type { Kysely } from 'kysely';
import { newId } from '../../crypto/ids.ts';
import { randomToken, sha256 } from '../../crypto/tokens.ts';
import { isoIn, isoNow } from '../time.ts';
import { schoolTable, timestamps } from './columns.ts';

/**
 * Invitations: a single-use, expiring link that makes a person a member once they
 * accept. Memberships no longer start `invited`: the ones that did become pending invitations
 * whose link nobody holds (an operator resends them), and the membership goes, so nobody holds
 * a role they never accepted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await timestamps(
    schoolTable(db, 'invitations')
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('roles', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('invited_by_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('accepted_at', 'text')
      .addColumn('accepted_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('revoked_at', 'text'),
  ).execute();
  await db.schema.createIndex('invitations_school').on('invitations').columns(['school_id', 'id']).execute();
  await db.schema
    .createIndex('invitations_school_email')
    .on('invitations')
    .columns(['school_id', 'email'])
    .execute();

  const k = db as Kysely<LegacyTables>;
  const invited = await k
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select([
      'memberships.id',
      'memberships.school_id',
      'memberships.roles',
      'memberships.invited_by_user_id',
      'users.email',
    ])
    .where('memberships.status', '=', 'invited')
    .execute();
  const now = isoNow();
  for (const m of invited) {
    await k
      .insertInto('invitations')
      .values({
        id: newId('inv'),
        school_id: m.school_id,
        email: m.email,
        roles: m.roles,
        token_hash: sha256(randomToken()),
        invited_by_user_id: m.invited_by_user_id,
        expires_at: isoIn(7 * 24 * 3600),
        created_at: now,
        updated_at: now,
      })
      .execute();
    await k.deleteFrom('memberships').where('id', '=', m.id).execute();
  }
}

interface LegacyTables {
  memberships: {
    id: string;
    school_id: string;
    user_id: string;
    roles: string;
    status: string;
    invited_by_user_id: string | null;
  };
  users: { id: string; email: string };
  invitations: {
    id: string;
    school_id: string;
    email: string;
    roles: string;
    token_hash: string;
    invited_by_user_id: string | null;
    expires_at: string;
    created_at: string;
    updated_at: string;
  };
}
