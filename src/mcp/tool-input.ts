import { z } from 'zod';
import { MAX_PAGE_LIMIT } from '../domain/kernel/pagination.ts';

/**
 * Tool arguments are strict: a key the schema does not list is an error naming it, never
 * silently dropped (`{"School":"demo"}` once read as "school missing"). The JSON Schema says so
 * too (`additionalProperties: false`), so what `tools/list` shows is what `tools/call` enforces.
 */

/** A key as people mistype it: any case, with or without `_` or `-` (`School`, `signIn`). */
const loose = (key: string) => key.toLowerCase().replace(/[-_]/g, '');

/** The message for argument keys a tool does not take: each named, with a near miss, then the accepted keys. */
function unknownKeysMessage(unknown: readonly string[], accepted: readonly string[]): string {
  const named = unknown.map((key) => {
    const near = accepted.find((a) => loose(a) === loose(key));
    return near ? `"${key}" (did you mean "${near}"?)` : `"${key}"`;
  });
  const list = accepted.length
    ? `accepted arguments: ${accepted.join(', ')}`
    : 'this tool takes no arguments';
  return `unknown argument${unknown.length > 1 ? 's' : ''} ${named.join(', ')}; ${list}`;
}

/** A tool's argument object: strict, and an unknown key's error names it and the accepted keys. */
export function toolInput<S extends z.core.$ZodLooseShape>(shape: S) {
  const accepted = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? unknownKeysMessage(issue.keys, accepted) : undefined,
  });
}

/** Page size argument of every list tool. */
export const limitArg = z
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE_LIMIT)
  .optional()
  .describe('Page size, 1-100 (default 20).');

/** Cursor argument of every list tool whose output carries `nextCursor`. */
export const cursorArg = z
  .string()
  .max(200)
  .optional()
  .describe('nextCursor of the previous page; omit for the first page.');
