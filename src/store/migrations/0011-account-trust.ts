import { type Kysely, sql } from 'kysely';

/**
 * What a school may do with a person's account:
 * - `users.unverified_school_id`: set while the account's email is unproven because the school's
 *   operator received the invitation link (no SMTP) and whoever held it chose the password; the
 *   account is trusted at that school only, until its owner proves the email (a password reset,
 *   or an invitation that reached the mailbox). Null for every other account.
 * - `invitations.emailed`: 1 when the link went to the invited mailbox (opening it proves the
 *   email), 0 when it was handed to the inviter.
 * - `invitations.course_ids`: a JSON array of courses the person is enrolled in on accepting.
 * - Failed and throttled sign-ins are an account's security events, not a school's: the copies
 *   written into schools' audit trails (with the client's address) are deleted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('unverified_school_id', 'text', (c) => c.references('schools.id').onDelete('set null'))
    .execute();
  await db.schema
    .alterTable('invitations')
    .addColumn('emailed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('invitations')
    .addColumn('course_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await sql`delete from domain_events where type in ('login.failed', 'login.locked')`.execute(db);
}
