/**
 * Password-reset links: a random token mailed to the person, kept only as its SHA-256,
 * valid for one hour and once. Users are not school-owned, so these functions take a user, not a
 * school; nothing here reveals whether an email has an account (the page answers the same).
 */
import { isTokenShaped, randomToken, sha256 } from '../../crypto/tokens.ts';
import { type Db, inTransaction, type Tx } from '../../store/database.ts';
import { isoIn, isoNow, nowMs } from '../../store/time.ts';
import { markEmailProven, setUserPasswordHash } from './users.ts';

/** How long a reset link works. */
export const PASSWORD_RESET_SECONDS = 3600;

/** Stores a new reset token for the user and returns it (the only time it exists in clear). */
export async function createPasswordReset(db: Db | Tx, userId: string): Promise<string> {
  const token = randomToken(32);
  const now = nowMs();
  await db
    .insertInto('password_resets')
    .values({
      token_hash: sha256(token),
      user_id: userId,
      created_at: isoNow(now),
      expires_at: isoIn(PASSWORD_RESET_SECONDS, now),
      used_at: null,
    })
    .execute();
  return token;
}

/** What a presented token is: usable (with its user), spent or expired, or unknown. */
export type ResetTokenState = { state: 'usable'; userId: string } | { state: 'spent' } | { state: 'unknown' };

/**
 * Looks a token up without consuming it (the page that asks for the new password). The lookup
 * is by the token's hash, an exact index match: no comparison of secrets happens in this process.
 */
export async function inspectPasswordReset(db: Db | Tx, token: string): Promise<ResetTokenState> {
  if (!isTokenShaped(token)) return { state: 'unknown' };
  const row = await db
    .selectFrom('password_resets')
    .select(['user_id', 'expires_at', 'used_at'])
    .where('token_hash', '=', sha256(token))
    .executeTakeFirst();
  if (!row) return { state: 'unknown' };
  if (row.used_at !== null || row.expires_at <= isoNow()) return { state: 'spent' };
  return { state: 'usable', userId: row.user_id };
}

/**
 * Spends a token: one conditional UPDATE (unused and unexpired), so of two concurrent uses only
 * one changes a row. Returns the user on success, else undefined. Every other open link of the
 * same user is spent too: a reset ends what earlier requests started.
 */
async function consumePasswordReset(db: Db | Tx, token: string): Promise<string | undefined> {
  if (!isTokenShaped(token)) return undefined;
  const at = isoNow();
  const hash = sha256(token);
  const result = await db
    .updateTable('password_resets')
    .set({ used_at: at })
    .where('token_hash', '=', hash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  const row = await db
    .selectFrom('password_resets')
    .select('user_id')
    .where('token_hash', '=', hash)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('password_resets')
    .set({ used_at: at })
    .where('user_id', '=', row.user_id)
    .where('used_at', 'is', null)
    .execute();
  return row.user_id;
}

/** Deletes links expired more than a day ago (housekeeping). */
export async function purgePasswordResets(db: Db | Tx, now = nowMs()): Promise<number> {
  const result = await db
    .deleteFrom('password_resets')
    .where('expires_at', '<', isoIn(-24 * 3600, now))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** What using a reset link did: the account whose password is set, or why the link is dead. */
export type LinkReset = { ok: true; userId: string } | { ok: false; reason: 'unknown' | 'spent' };

/**
 * Sets a new password through a reset link, in one transaction: the link (and every other open
 * link of the person) spent, the password stored, and `endAccess` run (the caller revokes the
 * person's grants there, so no app outlives a reset). `mailboxProven`: the link was mailed, so
 * using it proves the mailbox and an account trusted at one school only becomes the owner's;
 * a link an operator handed over proves nothing about the mailbox.
 */
export async function resetPasswordThroughLink(
  db: Db,
  token: string,
  input: {
    passwordHash: string;
    mailboxProven: boolean;
    endAccess: (tx: Tx, userId: string) => Promise<unknown>;
  },
): Promise<LinkReset> {
  const userId = await inTransaction(db, async (tx) => {
    const id = await consumePasswordReset(tx, token);
    if (id) {
      await setUserPasswordHash(tx, id, input.passwordHash);
      if (input.mailboxProven) await markEmailProven(tx, id);
      await input.endAccess(tx, id);
    }
    return id;
  });
  if (userId) return { ok: true, userId };
  const state = await inspectPasswordReset(db, token);
  return { ok: false, reason: state.state === 'unknown' ? 'unknown' : 'spent' };
}
