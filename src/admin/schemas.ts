import { z } from 'zod';
import { MAX_AMOUNT, MAX_COUNT } from '../domain/checks.ts';
import { MAX_PAGE_LIMIT } from '../domain/pagination.ts';

/**
 * Building blocks shared by every admin operation's schemas: ids, timestamps, money, pages and
 * the problem document. Named schemas are registered in `adminSchemas`, which becomes
 * `components.schemas` of `/openapi.json`.
 */
export const adminSchemas = new Map<string, { schema: z.ZodType; description?: string }>();

/** Registers a schema under a component name and returns it. */
export function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  if (adminSchemas.has(id)) throw new Error(`schema ${id} is named twice`);
  adminSchemas.set(id, { schema, description });
  return schema;
}

/** A resource id as this API issues them (prefix, underscore, 26 base32 characters). */
export const Id = z.string().min(1).max(64);

/** ISO 8601 UTC date-time, as every timestamp is sent and received. */
export const Timestamp = z.iso.datetime({ offset: true });

/** Integer minor units (cents) of a currency, 0 to MAX_AMOUNT (the domain checks the same range). */
export const Amount = z.number().int().min(0).max(MAX_AMOUNT);

/** A count a client sets (e.g. a redemption limit), 0 to MAX_COUNT (the domain checks the same range). */
export const Count = z.number().int().min(0).max(MAX_COUNT);

/** ISO 4217 currency code. */
export const Currency = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code, e.g. USD');

/** URL-safe slug. */
export const Slug = z
  .string()
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case letters, digits and single hyphens');

/** An http(s) URL. */
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

/** Page query every list accepts: `limit` 1..100 (never clamped) and an opaque `cursor`. */
export const PageQuery = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_LIMIT)
    .optional()
    .describe(`Page size, 1 to ${MAX_PAGE_LIMIT} (default 20). Larger is a 422, never a silent clamp.`),
  cursor: z.string().max(300).optional().describe('`next_cursor` of the previous page.'),
};

/** A date-range filter pair on a timestamp column. */
export const RangeQuery = (what: string) => ({
  from: Timestamp.optional().describe(`Only ${what} at or after this instant.`),
  to: Timestamp.optional().describe(`Only ${what} before this instant.`),
});

/** Case-insensitive free-text filter. */
export const SearchQuery = z.string().trim().min(1).max(200).optional();

/** `{ data, next_cursor }`: one page of a list. */
export function pageOf<T extends z.ZodType>(item: T) {
  const page = z.object({
    data: z.array(item),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  });
  pageItems.set(page, item);
  return page;
}

/** The item schema of each page schema made by `pageOf` (the OpenAPI generator reuses examples). */
export const pageItems = new WeakMap<z.ZodType, z.ZodType>();

/** Query-string boolean: true/false/1/0. */
export const QueryBool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .optional();

/** RFC 9457 problem document with this API's stable `code`. */
export const Problem = named(
  'Problem',
  z.object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.string().describe('Stable machine-readable error code.'),
    detail: z.string().optional(),
    instance: z.string().optional(),
    request_id: z.string().optional(),
    errors: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .describe('For `validation_failed`: each failing field (`body.title`, `query.limit`, …).'),
  }),
  'An RFC 9457 problem document.',
);

/** Converts a camelCase key to snake_case. */
export function snakeKey(key: string): string {
  return key.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`);
}

/** Converts a snake_case key to camelCase. */
export function camelKey(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Shallow key conversion of a domain object to the API's snake_case, dropping `omit` keys. */
export function toSnake<T extends object>(
  obj: T,
  omit: readonly string[] = ['schoolId'],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!omit.includes(k)) out[snakeKey(k)] = v;
  return out;
}

/** Shallow key conversion of an API body to the domain's camelCase (undefined values dropped). */
export function toCamel(obj: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj ?? {})) if (v !== undefined) out[camelKey(k)] = v;
  return out;
}

/** An email address; surrounding spaces are ignored. */
export const Email = z.string().trim().max(254).pipe(z.email());
