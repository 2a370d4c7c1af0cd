import type { z } from 'zod';

/**
 * What a field is, declared beside its rule, for the surfaces that show and edit it (the
 * console's forms and pages, as Django's admin reads a model field's type and verbose name):
 * never guessed from a field's name. A declaration is kept by the rule's definition, so a
 * `.describe()` copy of a declared rule is declared too; the API's JSON Schema never shows it.
 */

/** What kind of value a field holds, beyond its JSON type. */
type FieldKind =
  /** Integer minor units of a currency (the object's own `currency`, else the school's). */
  | 'money'
  /** A percentage from 0 to 100. */
  | 'percent'
  /** Text of several paragraphs (a description, a lecture's Markdown). */
  | 'long_text'
  /** A web address. */
  | 'url'
  /** An ISO 4217 currency code. */
  | 'currency'
  /** An IANA time zone. */
  | 'time_zone';

/** A field's declaration. */
export interface FieldMeta {
  readonly kind?: FieldKind;
  /** Kept so older clients are not refused, and ignored: forms leave it out. */
  readonly ignored?: boolean;
}

const declarations = new WeakMap<object, FieldMeta>();

/** Declares what every field of the rule `schema` is, and returns the rule. */
export function declare<T extends z.ZodType>(schema: T, meta: FieldMeta): T {
  declarations.set(schema._zod.def, { ...declarations.get(schema._zod.def), ...meta });
  return schema;
}

/** The declaration of the rule `schema` (not of rules it wraps), if any. */
export function declarationOf(schema: z.ZodType): FieldMeta | undefined {
  return declarations.get(schema._zod.def);
}
