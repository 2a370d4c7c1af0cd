import { z } from 'zod';
import type { FieldError } from '../../errors/problem-error.ts';
import { ruleWording } from './fields.ts';
import { innerOf } from './zod-walk.ts';

/**
 * How the domain parses its input with an entity's zod fields, and how it words a failure.
 *
 * One schema, two wordings: the admin API answers zod's own messages (admin/invoke.ts), while the
 * domain, and so GraphQL and MCP member tools, answer one sentence per field that states the
 * whole rule ("must be an integer from 0 to 100"). That sentence is rendered here, from the
 * rule itself, so it cannot drift from the bounds it describes.
 */

/**
 * The domain's sentence for a value that fails `schema`: the rule's own wording when it has one,
 * else the sentence its pattern or refinement gives (`issue`), else its bounds in words.
 */
export function domainMessage(schema: z.ZodType, issue?: z.core.$ZodIssue): string {
  // A rule's own wording wins wherever it sits among the wrappers (optional, required…).
  for (let s: z.ZodType | undefined = schema; s; s = innerOf(s)) {
    const named = ruleWording.get(s._zod.def);
    if (named) return named;
  }
  for (let s: z.ZodType | undefined = schema; s; s = innerOf(s)) {
    if (issue && (issue.code === 'invalid_format' || issue.code === 'custom')) return issue.message;
    if (s instanceof z.ZodString)
      return s.minLength
        ? `must be a non-empty string of at most ${s.maxLength} characters`
        : `must be a string of at most ${s.maxLength} characters`;
    if (s instanceof z.ZodNumber) return `must be an integer from ${s.minValue} to ${s.maxValue}`;
    if (s instanceof z.ZodEnum) return `must be one of ${s.options.join(', ')}`;
    if (s instanceof z.ZodBoolean) return 'must be a boolean';
    if (s instanceof z.ZodArray) {
      const max = (s._zod.bag as { maximum?: number }).maximum;
      return max === undefined ? 'must be a list' : `must be a list of at most ${max} items`;
    }
  }
  return 'is invalid';
}

/** The schema at `path` inside `schema` (through objects, arrays and wrappers). */
function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType {
  let s = schema;
  for (const key of path) {
    let inner = s;
    for (let w = innerOf(inner); w; w = innerOf(inner)) inner = w;
    if (inner instanceof z.ZodObject && typeof key === 'string' && key in inner.shape)
      s = inner.shape[key] as z.ZodType;
    else if (inner instanceof z.ZodArray && typeof key === 'number') s = inner.element as z.ZodType;
    else break;
  }
  return s;
}

/**
 * Parses each field of `input` that `fields` names, independently, as the domain always has:
 * a valid field is kept (trimmed, normalised), a failing one adds one error, in the domain's
 * wording, for each failing path (`title`, `items.0.unitAmount`), in the order of the shape.
 * Keys the shape does not name are dropped. `data` holds only the fields that passed, so a
 * caller throws the errors (Checks#done) before it writes anything.
 */
export function parseFields<S extends z.ZodObject>(
  fields: S,
  input: object,
): { data: z.output<S>; errors: FieldError[] } {
  const data: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  const values = input as Record<string, unknown>;
  for (const [key, rule] of Object.entries(fields.shape as Record<string, z.ZodType>)) {
    const parsed = rule.safeParse(values[key]);
    if (parsed.success) {
      if (parsed.data !== undefined) data[key] = parsed.data;
      continue;
    }
    const seen = new Set<string>();
    for (const issue of parsed.error.issues) {
      const field = [key, ...issue.path.map(String)].join('.');
      if (seen.has(field)) continue;
      seen.add(field);
      errors.push({ field, message: domainMessage(schemaAt(rule, issue.path), issue) });
    }
  }
  return { data: data as z.output<S>, errors };
}
