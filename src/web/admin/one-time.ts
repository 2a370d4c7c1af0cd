/**
 * A value shown once after a redirect (POST-redirect-GET, issue #16): the POST seals it into a
 * short-lived cookie bound to the session, and the next GET of the page opens and deletes it.
 * A refresh finds nothing, so nothing is shown (or re-created) twice; the value is never
 * stored server-side, in a URL, or in a log.
 */
import { createHmac } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { open, seal } from '../../crypto/secret-box.ts';
import type { AppContext } from '../../http/context.ts';
import type { Session } from '../../http/sessions.ts';

const NAME = 'lectern_once';
const MAX_AGE_SECONDS = 300;

// Over https the `__Host-` prefix, as the session cookie (sessions.ts explains why).
const cookieName = (ctx: AppContext) => (ctx.config.secureCookies ? `__Host-${NAME}` : NAME);

// A key derived for this use only: LECTERN_SECRET itself never seals a cookie.
const keyOf = (ctx: AppContext) =>
  createHmac('sha256', ctx.config.secret).update('lectern one-time cookie v1').digest();

const options = (ctx: AppContext, maxAge: number) =>
  ({ httpOnly: true, sameSite: 'Strict', path: '/', secure: ctx.config.secureCookies, maxAge }) as const;

/** Keeps `value` for the next page this session opens (within 5 minutes). */
export function showOnceNext(ctx: AppContext, c: Context, session: Session, value: object): void {
  const sealed = seal(keyOf(ctx), JSON.stringify(value), `once:${session.idHash}`);
  setCookie(c, cookieName(ctx), sealed, options(ctx, MAX_AGE_SECONDS));
}

/** The value kept by showOnceNext for this session, taken (the cookie is deleted); else undefined. */
export function takeShowOnce<T>(ctx: AppContext, c: Context, session: Session): T | undefined {
  const sealed = getCookie(c, cookieName(ctx));
  if (sealed === undefined) return undefined;
  deleteCookie(c, cookieName(ctx), options(ctx, 0));
  try {
    return JSON.parse(open(keyOf(ctx), sealed, `once:${session.idHash}`)) as T;
  } catch {
    // Another session's, tampered with, or sealed under an older secret: nothing to show.
    return undefined;
  }
}
