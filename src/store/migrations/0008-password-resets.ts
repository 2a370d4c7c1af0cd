import type { Kysely } from 'kysely';

/**
 * One-time password-reset links. Only the token's SHA-256 is stored; `used_at` makes
 * a link single-use (consumed by a conditional UPDATE), `expires_at` bounds its life.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
}
