/**
 * Signed values of the school site: the confirmation link of a new account's email and the
 * token a public form carries. HMAC-SHA-256 under a key derived from LECTERN_SECRET for this use
 * alone, so nothing else's MAC or ciphertext key is ever reused here.
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../../crypto/tokens.ts';
import type { AppContext } from '../../http/context.ts';

/** The field of a public form's signed token (a form a signed-out visitor may send). */
export const FORM_TOKEN_FIELD = 'form_token';

function mac(ctx: AppContext, purpose: string, value: string): string {
  const key = createHmac('sha256', ctx.config.secret).update('lectern school site v1').digest();
  return createHmac('sha256', key).update(`${purpose}:${value}`).digest('base64url');
}

/** A token saying `subject` until `lifetimeSeconds` from now: `<expiry>.<mac>`. */
export function signFor(ctx: AppContext, purpose: string, subject: string, lifetimeSeconds: number): string {
  const expires = ctx.clock.now() + lifetimeSeconds * 1000;
  return `${expires}.${mac(ctx, purpose, `${subject}:${expires}`)}`;
}

/** Whether `token` was made by signFor for this purpose and subject and has not expired. */
export function verifySigned(ctx: AppContext, purpose: string, subject: string, token: string): boolean {
  const match = /^(\d{13})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires < ctx.clock.now()) return false;
  return safeEqual(match[2], mac(ctx, purpose, `${subject}:${expires}`));
}
