import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** An opaque token of `bytes` random bytes (default 32 = 256 bits), base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

// What randomToken() makes: 32 bytes are 43 base64url characters (no padding).
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Whether `value` could be a token of ours (a link's, from randomToken()): anything else is
 * refused before a query, so hostile input (a 5 000-character path, NULs) never reaches the store.
 */
export function isTokenShaped(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

/** SHA-256 of a token, base64url: the only form in which tokens, codes and secrets are stored. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** Constant-time string comparison (lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
