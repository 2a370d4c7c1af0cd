import { purgePasswordResets } from '../../domain/school/password-resets.ts';
import type { Db } from '../../store/database.ts';
import { isoIn, nowMs } from '../../store/time.ts';

/**
 * Rows stay this long past their expiry before they are deleted: an expired code or a rotated
 * refresh token presented again within it is still recognised as reuse (and revokes its grant)
 * instead of looking merely unknown.
 */
export const PURGE_GRACE_SECONDS = 24 * 3600;

/** How many rows one purge deleted, by table. */
export interface PurgeResult {
  codes: number;
  tokens: number;
  sessions: number;
  passwordResets: number;
  /** Sealed answers of rotations older than any reuse grace (token-refresh.ts), dropped. */
  rotationAnswers: number;
}

// The longest reuse grace REFRESH_REUSE_GRACE_SECONDS allows: past it no replay can be answered.
const LONGEST_REUSE_GRACE_SECONDS = 300;

/**
 * Deletes authorization codes, access and refresh tokens, login sessions and password-reset links
 * long expired, and the kept answers of refresh rotations no replay can reach any more.
 */
export async function purgeExpired(db: Db, now: number = nowMs()): Promise<PurgeResult> {
  const cutoff = isoIn(-PURGE_GRACE_SECONDS, now);
  const codes = await db.deleteFrom('oauth_codes').where('expires_at', '<', cutoff).executeTakeFirst();
  const tokens = await db.deleteFrom('oauth_tokens').where('expires_at', '<', cutoff).executeTakeFirst();
  const sessions = await db.deleteFrom('sessions').where('expires_at', '<', isoIn(0, now)).executeTakeFirst();
  const answers = await db
    .updateTable('oauth_grants')
    .set({ rotated_refresh_hash: null, rotation_answer: null })
    .where('rotation_answer', 'is not', null)
    .where('last_used_at', '<', isoIn(-LONGEST_REUSE_GRACE_SECONDS, now))
    .executeTakeFirst();
  return {
    codes: Number(codes.numDeletedRows),
    tokens: Number(tokens.numDeletedRows),
    sessions: Number(sessions.numDeletedRows),
    passwordResets: await purgePasswordResets(db, now),
    rotationAnswers: Number(answers.numUpdatedRows),
  };
}
