import { type Kysely, sql } from 'kysely';

/**
 * What a school's public site needs beyond its catalogue:
 * - `schools.signup_open`: 1 while visitors may make an account and become the school's student
 *   at `/schools/<subdomain>/signup`; 0 when the school takes people only by invitation. Schools
 *   that exist when this runs took people by invitation only until now, so they start closed (an
 *   operator opens sign-up in the settings); a school founded afterwards starts open.
 * - `courses.checkout_url`: the page of the school's own payment provider where a paid course is
 *   bought (Lectern has no checkout); null while the course is not on sale.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('schools')
    .addColumn('signup_open', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await sql`update schools set signup_open = 0`.execute(db);
  await db.schema.alterTable('courses').addColumn('checkout_url', 'text').execute();
}
