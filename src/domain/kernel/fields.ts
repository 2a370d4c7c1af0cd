import { z } from 'zod';
import { declare } from './field-meta.ts';

/**
 * The field rules every entity shares, written once in zod. Each entity's fields are a zod
 * object beside its domain module, built from these; the domain parses its input with it
 * (parse.ts renders failures in the domain's wording) and the admin API derives its request
 * bodies from it, so a slug, a currency, a URL, an email or an amount means the same everywhere.
 */

/**
 * The domain's wording of a named rule, keyed by the rule's definition (a `.describe()` copy
 * shares it). Rules not named here are worded from their bounds (parse.ts#domainMessage).
 */
export const ruleWording = new WeakMap<object, string>();

/** Names the domain's wording of a rule and returns the rule. */
export function worded<T extends z.ZodType>(schema: T, message: string): T {
  ruleWording.set(schema._zod.def, message);
  return schema;
}

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
export const Amount = declare(z.number().int().min(0).max(MAX_AMOUNT), { kind: 'money' });

/** A count a client sets (e.g. a redemption limit), 0 to MAX_COUNT. */
export const Count = z.number().int().min(0).max(MAX_COUNT);

/** ISO 4217 currency code. */
export const Currency = declare(
  worded(
    z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code, e.g. USD'),
    'must be an ISO 4217 currency code, e.g. USD',
  ),
  { kind: 'currency' },
);

/** URL-safe slug: lower-case words joined by single hyphens, at most 100 characters. */
export const Slug = worded(
  z
    .string()
    .max(100)
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case letters, digits and single hyphens'),
  'must be lower-case letters, digits and single hyphens (≤ 100)',
);

/** An http(s) URL of at most 2000 characters. */
export const HttpUrl = declare(
  worded(
    z
      .string()
      .max(2000)
      .refine((v) => {
        try {
          const u = new URL(v);
          return u.protocol === 'https:' || u.protocol === 'http:';
        } catch {
          return false;
        }
      }, 'must be an http or https URL'),
    'must be an http or https URL',
  ),
  { kind: 'url' },
);

/** An email address; surrounding spaces are ignored. */
export const Email = worded(z.string().trim().max(254).pipe(z.email()), 'must be an email address');

/** A hex colour, #rrggbb (either case). */
export const Color = worded(
  z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour like #1f4b99'),
  'must be a hex colour like #1f4b99',
);

/** A resource id as this service issues them (prefix, underscore, 26 base32 characters). */
export const Id = z.string().min(1).max(64);

/**
 * An ISO 8601 instant as the domain accepts it (a date alone, or a date-time with a zone),
 * normalised to UTC with milliseconds so it sorts as text. The admin API's wire rule is
 * stricter (`Timestamp` in admin/schemas.ts: a date-time with an offset).
 */
export const Instant = worded(
  z
    .string()
    .refine((v) => toIsoTimestamp(v) !== undefined)
    .transform((v) => toIsoTimestamp(v) as string),
  'must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z',
);

/** An ISO timestamp string as stored (`toISOString()`), or undefined if it does not parse. */
export function toIsoTimestamp(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(value))
    return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** A trimmed, non-empty text of at most `max` characters (a title, a name). */
export function Text(max = 200) {
  return z.string().trim().min(1).max(max);
}
