import { z } from 'zod';
import { type CamelKey, camelKey, type SnakeKey, snakeKey } from '../domain/kernel/case.ts';
import { Amount, Currency, Email, HttpUrl, Id } from '../domain/kernel/fields.ts';
import { MAX_PAGE_LIMIT } from '../domain/kernel/pagination.ts';

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

/** ISO 8601 UTC date-time, as every timestamp is sent and received. */
export const Timestamp = z.iso.datetime({ offset: true });

/** The shared field rules (domain/fields.ts), under the names the operations use. */
export { Amount, Currency, Email, HttpUrl, Id };

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

/**
 * RFC 9457 problem document with this API's stable `code`: named for the OpenAPI components, where
 * every error response refers to it.
 */
named(
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

/** The one snake_case mapping (domain/kernel/case.ts), as the API uses it. */
export { type SnakeKey, snakeKey };

/** A domain object as the API sends it: snake_case keys, `O` left out. */
export type Snake<T, O extends string = 'schoolId'> = {
  [K in keyof T as K extends O ? never : SnakeKey<K & string>]: T[K];
};

/** An API body as the domain takes it: camelCase keys. */
export type Camel<T> = { [K in keyof T as CamelKey<K & string>]: T[K] };

/**
 * An entity's fields (camelCase, written once beside its domain module) as a request body of this
 * API: the same rules under snake_case keys, unknown keys refused. Pick or partial the fields
 * first; the domain parses the camelCase body (`toCamel`) with the same fields. `wire` names the
 * few fields whose form on the wire is stricter than the domain's (an instant is a `Timestamp`
 * with an offset here, while the domain also takes a bare date); they keep the field's optionality.
 */
export function bodyOf<T extends z.ZodRawShape>(
  fields: z.ZodObject<T>,
  wire: { [K in keyof T as SnakeKey<K & string>]?: z.ZodType } = {},
) {
  const shape: Record<string, z.ZodType> = {};
  const wired: Record<string, z.ZodType | undefined> = wire;
  for (const [key, rule] of Object.entries(fields.shape) as Array<[string, z.ZodType]>) {
    const name = snakeKey(key);
    const onWire = wired[name];
    shape[name] = !onWire ? rule : rule instanceof z.ZodOptional ? onWire.optional() : onWire;
  }
  return z.strictObject(shape as unknown as { [K in keyof T as SnakeKey<K & string>]: T[K] });
}

/** Shallow key conversion of a domain object to the API's snake_case, dropping `omit` keys. */
export function toSnake<T extends object, O extends string = 'schoolId'>(
  obj: T,
  omit: readonly O[] = ['schoolId' as O],
): Snake<T, O> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!omit.includes(k as O)) out[snakeKey(k)] = v;
  return out as Snake<T, O>;
}

/** Shallow key conversion of an API body to the domain's camelCase (undefined values dropped). */
export function toCamel<T extends object>(obj: T | undefined): Camel<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj ?? {})) if (v !== undefined) out[camelKey(k)] = v;
  return out as Camel<T>;
}
