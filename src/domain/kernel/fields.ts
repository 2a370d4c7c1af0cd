import { z } from 'zod';

/**
 * The field rules every entity shares, written once in zod: the admin API's schemas use them as
 * they are (so they shape /openapi.json) and the domain's Checks test values with them, so a
 * slug, a currency, a URL, an email or an amount means the same on every surface.
 */

/**
 * The largest amount of money, in minor units, any price, discount or order figure may be: a
 * billion in two-decimal currencies. Both engines store money as 64-bit integers (migration 0006),
 * and this bound keeps every sum we compute far inside JavaScript's exact integers (2^53).
 */
export const MAX_AMOUNT = 100_000_000_000;

/**
 * The largest count (redemption limits and any other unbounded integer) a client may set: the
 * largest PostgreSQL `integer`, so a count is stored as the same number on both engines.
 */
export const MAX_COUNT = 2_147_483_647;

/** Integer minor units (cents) of a currency, 0 to MAX_AMOUNT. */
export const Amount = z.number().int().min(0).max(MAX_AMOUNT);

/** A count a client sets (e.g. a redemption limit), 0 to MAX_COUNT. */
export const Count = z.number().int().min(0).max(MAX_COUNT);

/** ISO 4217 currency code. */
export const Currency = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code, e.g. USD');

/** URL-safe slug: lower-case words joined by single hyphens, at most 100 characters. */
export const Slug = z
  .string()
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case letters, digits and single hyphens');

/** An http(s) URL of at most 2000 characters. */
export const HttpUrl = z
  .string()
  .max(2000)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'https:' || u.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'must be an http or https URL');

/** An email address; surrounding spaces are ignored. */
export const Email = z.string().trim().max(254).pipe(z.email());

/** A trimmed, non-empty text of at most `max` characters (a title, a name). */
export function Text(max = 200) {
  return z.string().trim().min(1).max(max);
}
