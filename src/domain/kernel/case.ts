/**
 * The one snake_case mapping: columns are snake_case, domain objects camelCase, and the admin
 * API speaks snake_case too (admin/schemas.ts builds its `Snake`/`Camel` types on these).
 */

/** `priceAmount` → `price_amount`, as a type. */
export type SnakeKey<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${SnakeKey<T>}`
  : S;

/** `price_amount` → `priceAmount`, as a type. */
export type CamelKey<S extends string> = S extends `${infer H}_${infer T}`
  ? `${H}${Capitalize<CamelKey<T>>}`
  : S;

/** Converts a camelCase key to snake_case. */
export function snakeKey(key: string): string {
  return key.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`);
}

/** Converts a snake_case key to camelCase. */
export function camelKey(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * A parsed patch as the columns it sets: each camelCase key under its snake_case column, keys
 * the patch leaves out left out (so an update writes only what changed).
 */
export function columnsOf<T extends object>(patch: T): { [K in keyof T as SnakeKey<K & string>]: T[K] } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) out[snakeKey(k)] = v;
  return out as { [K in keyof T as SnakeKey<K & string>]: T[K] };
}
