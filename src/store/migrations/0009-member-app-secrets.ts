import type { Kysely } from 'kysely';

/**
 * Member-app secret rotation with an overlap, and the one-time display of a new secret:
 * - `oauth_clients.previous_secret_hash` / `previous_secret_expires_at`: the secret a rotation
 *   replaced keeps authenticating until then (one previous secret at most; ISO text, null when none).
 * - `session_flashes`: a value shown once on the page a form redirects to (the new client
 *   secret), sealed with LECTERN_SECRET, bound to one login session and deleted when read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('previous_secret_hash', 'text').execute();
  await db.schema.alterTable('oauth_clients').addColumn('previous_secret_expires_at', 'text').execute();
  await db.schema
    .createTable('session_flashes')
    .addColumn('session_hash', 'text', (c) => c.notNull().references('sessions.id_hash').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_flashes_pk', ['session_hash', 'name'])
    .execute();
}
