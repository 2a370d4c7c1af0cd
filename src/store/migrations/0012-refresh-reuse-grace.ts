import type { Kysely } from 'kysely';

/**
 * The answer of a grant's latest refresh-token rotation, kept so that the same answer can be
 * given again when the replaced token is presented once more within the reuse grace
 * (`REFRESH_REUSE_GRACE_SECONDS`; token-refresh.ts):
 * - `oauth_grants.rotated_refresh_hash`: SHA-256 of the refresh token the latest rotation
 *   replaced (null before the first rotation).
 * - `oauth_grants.rotation_answer`: the access and refresh tokens that rotation issued, sealed
 *   (AES-256-GCM) under a key derived from LECTERN_SECRET and the replaced token itself, which the
 *   store never holds. Each rotation overwrites both; revoking the grant clears them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_grants').addColumn('rotated_refresh_hash', 'text').execute();
  await db.schema.alterTable('oauth_grants').addColumn('rotation_answer', 'text').execute();
}
