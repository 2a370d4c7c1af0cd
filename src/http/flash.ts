/**
 * One-time values for the page a form redirects to (POST-redirect-GET): the form stores the
 * value on the browser's login session, the page it redirects to takes it, and a refresh finds
 * nothing. Used for a new client secret, which must be shown once and never travel in a URL or
 * a log. The value is sealed (AES-256-GCM, key derived from LECTERN_SECRET, bound to the session
 * and the name) so the database never holds it in the clear, and it expires after minutes.
 */
import { createHmac } from 'node:crypto';
import { open, seal } from '../crypto/secret-box.ts';
import { inTransaction } from '../store/database.ts';
import { isoIn, isoNow } from '../store/time.ts';
import type { AppContext } from './context.ts';
import type { Session } from './sessions.ts';

/** A flash left unread this long is gone: the person left the page before it loaded. */
export const FLASH_SECONDS = 10 * 60;

function flashKey(ctx: AppContext): Buffer {
  // A key for flashes only, so LECTERN_SECRET itself never encrypts page values.
  return createHmac('sha256', ctx.config.secret).update('lectern flash v1').digest();
}

const bound = (session: Session, name: string) => `${session.idHash}:${name}`;

/** Stores `value` for the session under `name`, replacing an unread one of the same name. */
export async function putFlash(
  ctx: AppContext,
  session: Session,
  name: string,
  value: unknown,
): Promise<void> {
  const sealed = seal(flashKey(ctx), JSON.stringify(value), bound(session, name));
  await inTransaction(ctx.db, async (tx) => {
    // Housekeeping: this session's expired flashes go with each new one.
    await tx
      .deleteFrom('session_flashes')
      .where('session_hash', '=', session.idHash)
      .where((eb) => eb.or([eb('name', '=', name), eb('expires_at', '<=', isoNow())]))
      .execute();
    await tx
      .insertInto('session_flashes')
      .values({ session_hash: session.idHash, name, sealed, expires_at: isoIn(FLASH_SECONDS) })
      .execute();
  });
}

/**
 * Takes the session's flash `name`: returns it once and deletes it, so a second read (a refresh,
 * a second tab) gets undefined. The delete is conditional on the row read, so two concurrent
 * reads cannot both get the value.
 */
export async function takeFlash<T>(ctx: AppContext, session: Session, name: string): Promise<T | undefined> {
  const row = await ctx.db
    .selectFrom('session_flashes')
    .select(['sealed', 'expires_at'])
    .where('session_hash', '=', session.idHash)
    .where('name', '=', name)
    .executeTakeFirst();
  if (!row) return undefined;
  const deleted = await ctx.db
    .deleteFrom('session_flashes')
    .where('session_hash', '=', session.idHash)
    .where('name', '=', name)
    .where('sealed', '=', row.sealed)
    .executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== 1 || row.expires_at <= isoNow()) return undefined;
  try {
    return JSON.parse(open(flashKey(ctx), row.sealed, bound(session, name))) as T;
  } catch {
    // Sealed under another LECTERN_SECRET (rotated since): nothing to show.
    return undefined;
  }
}
