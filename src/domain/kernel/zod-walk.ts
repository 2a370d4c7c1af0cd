/**
 * The one walker of zod schemas: what a wrapper holds, a field's rule without its wrappers, an
 * object's fields and the rule at a path. The console's forms, the MCP tools' input and the
 * domain's wording of a failure all walk schemas through it, so they agree on what a wrapper is.
 */
import { z } from 'zod';

// biome-ignore lint/suspicious/noExplicitAny: zod's internals are reached through `_zod.def`
type AnyDef = any;

export const defOf = (s: z.ZodType): AnyDef => s._zod.def;

/** The wrappers that hold one schema as `innerType`: they change presence, not the rule. */
const WRAPPERS: ReadonlySet<string> = new Set([
  'optional',
  'nullable',
  'default',
  'prefault',
  'readonly',
  'catch',
  'nonoptional',
]);

/** The schema a wrapper holds; undefined for a rule. */
export function innerOf(schema: z.ZodType): z.ZodType | undefined {
  const def = defOf(schema);
  return WRAPPERS.has(def.type) ? def.innerType : undefined;
}

/** The field's rule without wrappers (and the input side of a pipe), with what they said. */
export function unwrap(schema: z.ZodType) {
  let s = schema;
  let optional = false;
  let nullable = false;
  let description = schema.description;
  let email = false;
  let defaultValue: unknown;
  const seen: z.ZodType[] = [s];
  for (let guard = 0; guard < 20; guard++) {
    const def = defOf(s);
    let next: z.ZodType | undefined;
    if (def.type === 'optional' || def.type === 'default' || def.type === 'prefault') {
      optional = true;
      if (def.type !== 'optional' && defaultValue === undefined) defaultValue = def.defaultValue;
      next = def.innerType;
    } else if (def.type === 'nullable') {
      nullable = true;
      next = def.innerType;
    } else if (def.type === 'readonly' || def.type === 'catch' || def.type === 'nonoptional') {
      next = def.innerType;
    } else if (def.type === 'pipe') {
      const out = defOf(def.out);
      if (out.type === 'string' && (def.out as { format?: string }).format === 'email') email = true;
      next = defOf(def.in).type === 'transform' ? def.out : def.in;
    } else if (def.type === 'lazy') {
      next = def.getter();
    }
    if (!next) break;
    s = next;
    seen.push(s);
    description ??= s.description;
  }
  return { inner: s, optional, nullable, description, email, seen, defaultValue };
}

/** The fields of an object schema (through wrappers); empty for anything else. */
export function shapeOf(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  if (!schema) return {};
  const { inner } = unwrap(schema);
  return inner instanceof z.ZodObject ? (inner.shape as Record<string, z.ZodType>) : {};
}

/**
 * The schema of the field at a form name inside an object schema (`blocks.2.text`: through
 * lists and into whichever variant has the field); undefined when the schema has no such field.
 */
export function schemaAt(schema: z.ZodType, name: string): z.ZodType | undefined {
  let s: z.ZodType | undefined = schema;
  for (const part of name.split('.')) {
    if (!s) return undefined;
    const inner = unwrap(s).inner;
    const def = defOf(inner);
    if (/^\d+$/.test(part) && def.type === 'array') s = def.element;
    else if (def.type === 'object') s = Object.hasOwn(def.shape, part) ? def.shape[part] : undefined;
    else if (def.type === 'union')
      s = (def.options as z.ZodType[])
        .map((o) => defOf(unwrap(o).inner))
        .find((d) => d.type === 'object' && Object.hasOwn(d.shape, part))?.shape[part];
    else return undefined;
  }
  return s;
}
