import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';
import { isTokenShaped, randomToken, safeEqual, sha256 } from '../crypto/tokens.ts';
import { identifyActor } from '../events/context.ts';
import type { Db, Tx } from '../store/database.ts';
import { isoIn, isoNow, nowMs } from '../store/time.ts';
import type { AppContext } from './context.ts';

/** Name of the login-session cookie. Its value is a random token; only its hash is stored. */
export const SESSION_COOKIE = 'lectern_session';
/** Double-submit cookie that protects forms shown before anyone is signed in (the login form). */
const CSRF_COOKIE = 'lectern_csrf';

/**
 * The name a cookie goes by. Over https it carries the `__Host-` prefix (RFC 6265bis §4.1.3.2):
 * the browser then only accepts it Secure, Path=/ and without Domain, so a sibling subdomain or
 * a plain-http response cannot plant or shadow a session or CSRF cookie. Over http (local
 * development) the bare name: browsers refuse `__Host-` cookies that are not Secure.
 */
function cookieName(ctx: AppContext, name: typeof SESSION_COOKIE | typeof CSRF_COOKIE): string {
  return ctx.config.secureCookies ? `__Host-${name}` : name;
}
/** Name of the hidden form field every form carries. */
export const CSRF_FIELD = 'csrf_token';

/** A session ends after 12 hours without use, and 7 days after sign-in whatever happens. */
export const SESSION_IDLE_SECONDS = 12 * 3600;
export const SESSION_ABSOLUTE_SECONDS = 7 * 24 * 3600;
// Sliding the idle expiry on every request would be a write per page view.
const TOUCH_EVERY_MS = 60_000;

/** A signed-in browser. */
export interface Session {
  readonly idHash: string;
  readonly userId: string;
  readonly csrfSecret: string;
  /** When the user last entered a password (OIDC `auth_time`), ISO 8601. */
  readonly authTime: string;
  readonly expiresAt: string;
}

// Path=/ and no Domain always: what `__Host-` requires, and host-only is right on http too.
function cookieOptions(ctx: AppContext, maxAge: number): CookieOptions {
  return { httpOnly: true, sameSite: 'Lax', path: '/', secure: ctx.config.secureCookies, maxAge };
}

/**
 * Signs the user in: ends any session the browser had and starts a new one with a new id
 * (session fixation defence), then sets the cookie.
 */
export async function startSession(ctx: AppContext, c: Context, userId: string): Promise<Session> {
  await endSession(ctx, c);
  const token = randomToken(32);
  const now = nowMs();
  const session: Session = {
    idHash: sha256(token),
    userId,
    csrfSecret: randomToken(32),
    authTime: isoNow(now),
    expiresAt: isoIn(SESSION_IDLE_SECONDS, now),
  };
  await ctx.db
    .insertInto('sessions')
    .values({
      id_hash: session.idHash,
      user_id: userId,
      csrf_secret: session.csrfSecret,
      auth_time: session.authTime,
      created_at: session.authTime,
      last_seen_at: session.authTime,
      expires_at: session.expiresAt,
    })
    .execute();
  // Housekeeping: this user's dead sessions go when a new one starts.
  await ctx.db
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where('expires_at', '<', isoNow(now))
    .execute();
  setCookie(c, cookieName(ctx, SESSION_COOKIE), token, cookieOptions(ctx, SESSION_ABSOLUTE_SECONDS));
  return session;
}

/** The browser's live session, or undefined; slides the idle expiry (bounded by the absolute one). */
export async function currentSession(ctx: AppContext, c: Context): Promise<Session | undefined> {
  const token = getCookie(c, cookieName(ctx, SESSION_COOKIE));
  if (!token || token.length > 128) return undefined;
  const idHash = sha256(token);
  const row = await ctx.db
    .selectFrom('sessions')
    .selectAll()
    .where('id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const now = nowMs();
  if (Date.parse(row.expires_at) <= now) {
    await ctx.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
    return undefined;
  }
  let expiresAt = row.expires_at;
  if (now - Date.parse(row.last_seen_at) > TOUCH_EVERY_MS) {
    const absolute = Date.parse(row.created_at) + SESSION_ABSOLUTE_SECONDS * 1000;
    expiresAt = isoNow(Math.min(absolute, now + SESSION_IDLE_SECONDS * 1000));
    await ctx.db
      .updateTable('sessions')
      .set({ last_seen_at: isoNow(now), expires_at: expiresAt })
      .where('id_hash', '=', idHash)
      .execute();
  }
  // A signed-in browser: the events this request causes name the person as actor.
  identifyActor({ type: 'user', id: row.user_id });
  return {
    idHash,
    userId: row.user_id,
    csrfSecret: row.csrf_secret,
    authTime: row.auth_time,
    expiresAt,
  };
}

/** Signs the browser out: deletes the session row and clears the cookie. */
export async function endSession(ctx: AppContext, c: Context): Promise<void> {
  const token = getCookie(c, cookieName(ctx, SESSION_COOKIE));
  if (token && token.length <= 128) {
    await ctx.db.deleteFrom('sessions').where('id_hash', '=', sha256(token)).execute();
  }
  if (token !== undefined) deleteCookie(c, cookieName(ctx, SESSION_COOKIE), cookieOptions(ctx, 0));
}

// A key derived for CSRF only, so the encryption secret is never used directly as a MAC key;
// derived once per secret (every page with a form signs with it), as a KeyObject: HMAC with raw
// key bytes imports them on every call, several times the cost of the MAC itself.
const csrfKeys = new WeakMap<Uint8Array, KeyObject>();

function hmac(ctx: AppContext, purpose: string, value: string): string {
  const secret = ctx.config.secret;
  let key = csrfKeys.get(secret);
  if (!key) {
    key = createSecretKey(createHmac('sha256', secret).update('lectern csrf v1').digest());
    csrfKeys.set(secret, key);
  }
  return createHmac('sha256', key).update(`${purpose}:${value}`).digest('base64url');
}

/**
 * The CSRF token to put in a form. With a session it is an HMAC of the session's CSRF secret
 * (synchronizer token); without one it is an HMAC of a random `lectern_csrf` cookie (`__Host-` over https), set here if
 * missing (signed double-submit, OWASP CSRF cheat sheet).
 */
export function csrfToken(ctx: AppContext, c: Context, session?: Session): string {
  if (session) return hmac(ctx, 'session', session.csrfSecret);
  let anon = getCookie(c, cookieName(ctx, CSRF_COOKIE));
  if (!anon || !isTokenShaped(anon)) {
    anon = randomToken(32);
    setCookie(c, cookieName(ctx, CSRF_COOKIE), anon, cookieOptions(ctx, 24 * 3600));
  }
  return hmac(ctx, 'anonymous', anon);
}

/** True when a submitted form's CSRF token matches this browser (its session, or its cookie). */
export function verifyCsrf(
  ctx: AppContext,
  c: Context,
  submitted: string | undefined,
  session?: Session,
): boolean {
  if (!submitted) return false;
  if (session) return safeEqual(submitted, hmac(ctx, 'session', session.csrfSecret));
  const anon = getCookie(c, cookieName(ctx, CSRF_COOKIE));
  if (!anon) return false;
  return safeEqual(submitted, hmac(ctx, 'anonymous', anon));
}

/**
 * Ends every browser session of a user except `keep` (a session id hash): "sign out my other
 * sessions", and a password change. Without `keep`, all of them (a password reset). Returns how
 * many ended.
 */
export async function endUserSessions(
  ctx: { readonly db: Db | Tx },
  userId: string,
  keep?: string,
): Promise<number> {
  let query = ctx.db.deleteFrom('sessions').where('user_id', '=', userId);
  if (keep !== undefined) query = query.where('id_hash', '<>', keep);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** How many live browser sessions the user has besides `except` (a session id hash). */
export async function countOtherSessions(ctx: AppContext, userId: string, except: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', userId)
    .where('id_hash', '<>', except)
    .where('expires_at', '>', isoNow())
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
