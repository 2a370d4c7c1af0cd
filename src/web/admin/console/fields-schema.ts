/**
 * What the console's forms need to know of a catalogue schema (zod v4): each field's kind of
 * control, its bounds and whether it may be left out, read once from the schema so a form never
 * repeats a rule the schema states. Also the words a person reads: labels, hints, enum words.
 */
import type { z } from 'zod';
import { declarationOf, type FieldMeta } from '../../../domain/kernel/field-meta.ts';
import { ruleWording } from '../../../domain/kernel/fields.ts';
import { defOf, unwrap } from '../../../domain/kernel/zod-walk.ts';

export { schemaAt, shapeOf, unwrap } from '../../../domain/kernel/zod-walk.ts';
export {
  currencyAffix,
  type FieldContext,
  formatInstant,
  formatMoney,
  moneyInputValue,
  parseMoney,
} from './field-values.ts';

/** One variant of an object (a plain object has one; a discriminated union one per option). */
export interface ObjectVariant {
  /** The discriminator's value for this variant (undefined for a plain object). */
  readonly tag?: string;
  readonly shape: Readonly<Record<string, z.ZodType>>;
}

/** The control a field gets and what reading it back needs. */
export type FieldKind =
  | {
      readonly k: 'text';
      readonly input: 'text' | 'email' | 'url';
      readonly long: boolean;
      readonly min?: number;
      readonly max?: number;
      readonly acceptsEmpty: boolean;
      /** What the text is, as its rule declares (a currency, a time zone): its own control. */
      readonly declared?: 'currency' | 'time_zone';
    }
  | { readonly k: 'money' }
  | {
      readonly k: 'number';
      readonly int: boolean;
      readonly min?: number;
      readonly max?: number;
      readonly percent: boolean;
    }
  | { readonly k: 'boolean' }
  | { readonly k: 'enum'; readonly options: readonly string[] }
  | { readonly k: 'datetime' }
  | { readonly k: 'date' }
  | { readonly k: 'literal'; readonly value: string | number | boolean }
  | { readonly k: 'list'; readonly item: FieldKind; readonly max?: number }
  | { readonly k: 'object'; readonly variants: readonly ObjectVariant[]; readonly discriminator?: string }
  | { readonly k: 'other' };

/** A field as a form sees it: its rule without wrappers, and what the wrappers said. */
export interface FieldInfo {
  readonly key: string;
  /** The rule inside optional/nullable/default wrappers and pipes (input side). */
  readonly inner: z.ZodType;
  /** May be left out of the body (optional, or has a default). */
  readonly optional: boolean;
  readonly nullable: boolean;
  readonly kind: FieldKind;
  readonly description?: string;
  /** The value the schema puts in when the field is left out. */
  readonly defaultValue?: unknown;
  /** Kept for older clients and ignored (declared): forms leave it out. */
  readonly ignored: boolean;
}

/** What the field's rule declares it is (domain/kernel/field-meta.ts), the outermost saying first. */
function declared(seen: readonly z.ZodType[]): FieldMeta {
  const metas = seen.map(declarationOf).filter((m): m is FieldMeta => m !== undefined);
  return { kind: metas.find((m) => m.kind)?.kind, ignored: metas.some((m) => m.ignored) };
}

function kindOf(key: string, schema: z.ZodType): FieldKind {
  const { inner, email, seen } = unwrap(schema);
  const def = defOf(inner);
  const { kind: declaredKind } = declared(seen);
  switch (def.type) {
    case 'string': {
      const s = inner as z.ZodString;
      const format = (s as { format?: string | null }).format ?? undefined;
      if (format === 'datetime') return { k: 'datetime' };
      if (format === 'date') return { k: 'date' };
      const isUrl = format === 'url' || declaredKind === 'url';
      const min = s.minLength ?? undefined;
      const max = s.maxLength ?? undefined;
      const input = email || format === 'email' ? 'email' : isUrl ? 'url' : 'text';
      // An empty text is a value only where the rule takes one (a description, not a code).
      const acceptsEmpty = input === 'text' && inner.safeParse('').success;
      // Declared long, or allowed long enough that one line would not hold it.
      const long = input === 'text' && (declaredKind === 'long_text' || (max ?? 0) >= 1000);
      const role = declaredKind === 'currency' || declaredKind === 'time_zone' ? declaredKind : undefined;
      return { k: 'text', input, long, min, max, acceptsEmpty, declared: role };
    }
    case 'number': {
      const n = inner as z.ZodNumber;
      if (declaredKind === 'money') return { k: 'money' };
      // A safe integer's own bounds say nothing a person needs.
      const finite = (v: number | null) =>
        v === null || Math.abs(v) >= Number.MAX_SAFE_INTEGER ? undefined : v;
      return {
        k: 'number',
        int: n.isInt === true,
        min: finite(n.minValue),
        max: finite(n.maxValue),
        percent: declaredKind === 'percent',
      };
    }
    case 'boolean':
      return { k: 'boolean' };
    case 'enum':
      return { k: 'enum', options: Object.values(def.entries as Record<string, string>).map(String) };
    case 'literal': {
      const values = def.values as unknown[];
      if (values.length === 1) return { k: 'literal', value: values[0] as string };
      return { k: 'enum', options: values.map(String) };
    }
    case 'array': {
      const max = (inner._zod.bag as { maximum?: number }).maximum;
      return { k: 'list', item: kindOf(key, def.element), max };
    }
    case 'object':
      return { k: 'object', variants: [{ shape: (inner as z.ZodObject).shape }] };
    case 'union': {
      const options = def.options as z.ZodType[];
      const unwrapped = options.map((o) => unwrap(o).inner);
      if (unwrapped.every((o) => defOf(o).type === 'literal'))
        return { k: 'enum', options: unwrapped.flatMap((o) => (defOf(o).values as unknown[]).map(String)) };
      if (unwrapped.every((o) => defOf(o).type === 'object')) {
        const discriminator: string | undefined = def.discriminator;
        const variants = unwrapped.map((o) => {
          const shape = (o as z.ZodObject).shape as Record<string, z.ZodType>;
          const tagRule = discriminator ? shape[discriminator] : undefined;
          const tag = tagRule ? String((defOf(unwrap(tagRule).inner).values ?? [])[0]) : undefined;
          return { tag, shape };
        });
        return { k: 'object', variants, discriminator };
      }
      return { k: 'other' };
    }
    default:
      return { k: 'other' };
  }
}

/** The variant of an object a value is (by its discriminator), or undefined when it names none. */
export function variantOf(
  kind: Extract<FieldKind, { k: 'object' }>,
  value: Readonly<Record<string, unknown>> | undefined,
) {
  if (!kind.discriminator) return kind.variants[0];
  const tag = value?.[kind.discriminator];
  return kind.variants.find((v) => v.tag === tag);
}

/** Everything a form needs to know of one field. */
export function fieldInfo(key: string, schema: z.ZodType): FieldInfo {
  const u = unwrap(schema);
  return {
    key,
    inner: u.inner,
    optional: u.optional,
    nullable: u.nullable,
    kind: kindOf(key, schema),
    description: u.description,
    defaultValue: u.defaultValue,
    ignored: declared(u.seen).ignored === true,
  };
}

/**
 * Fields the API keeps only so older clients are not refused, declared ignored: a form that
 * showed them would ask for something that does nothing.
 */
export function isIgnoredField(info: FieldInfo): boolean {
  return info.ignored;
}

// ---------------------------------------------------------------------------------------------
// Words

const LABELS: Record<string, string> = {
  at_period_end: 'Cancel at the end of the period',
  kind: 'Discount type',
  percent_off: 'Percent off',
  amount_off: 'Amount off',
  max_redemptions: 'Maximum redemptions',
  duration_seconds: 'Duration (seconds)',
  timezone: 'Time zone',
  locale: 'Language and region',
  alt: 'Alternative text',
  markdown: 'Text (Markdown)',
  level: 'Heading level',
  author_user_id: 'Author',
  image_file_id: 'Image',
  logo_file_id: 'Logo',
  applies_to: 'Applies to',
  event_types: 'Event types',
  contact_email: 'Contact email',
  online_url: 'Online meeting URL',
  current_period_end: 'Current period ends',
  trial_ends_at: 'Trial ends',
  published: 'Published',
  active: 'Active',
  enabled: 'Enabled',
};

const WORDS: Record<string, string> = { url: 'URL', urls: 'URLs', id: 'ID', ids: 'IDs', mcp: 'MCP' };

/** snake_case words as a sentence-case phrase ("image_url" → "Image URL"). */
function words(key: string): string {
  const parts = key.split(/[_\s]+/).filter(Boolean);
  const phrase = parts.map((p) => WORDS[p] ?? p).join(' ');
  return phrase.charAt(0).toUpperCase() + phrase.slice(1);
}

/** A field's label: its name in words, a reference named by the thing it refers to. */
export function labelOf(key: string): string {
  if (Object.hasOwn(LABELS, key)) return LABELS[key];
  let k = key;
  if (k.startsWith('is_')) k = k.slice(3);
  if (k.endsWith('_ids')) k = `${k.slice(0, -4)}s`;
  else if (k.endsWith('_id')) k = k.slice(0, -3);
  else if (k.endsWith('_at') && k.length > 3) k = k.slice(0, -3);
  else if (k.endsWith('_amount')) k = k.slice(0, -7);
  else if (k.endsWith('_percent') && !k.endsWith('_off_percent')) k = k.slice(0, -8);
  else if (k.endsWith('_seconds')) return `${words(k.slice(0, -8))} (seconds)`;
  else if (k.endsWith('_count')) k = k.slice(0, -6);
  if (k.endsWith('_user') && k !== 'user') k = k.slice(0, -5);
  if (k.endsWith('_file') && k !== 'file') k = k.slice(0, -5);
  return words(k || key);
}

const ENUM_WORDS: Record<string, string> = {
  fixed: 'Fixed amount',
  percent: 'Percentage',
  'system-ui': 'System font',
  'sans-serif': 'Sans-serif',
  mcp_connections: 'MCP connections',
  past_due: 'Past due',
};

/** An enum value as a word ("past_due" → "Past due"; names such as "Open Sans" stay as they are). */
export function enumWord(value: string): string {
  if (Object.hasOwn(ENUM_WORDS, value)) return ENUM_WORDS[value];
  if (/[A-Z]/.test(value)) return value;
  return words(value.replace(/-/g, ' '));
}

/** The singular of a list's label, for one of its items ("Blocks" → "Block"). */
export function itemLabel(key: string): string {
  if (key === 'applies_to') return 'Product';
  if (key === 'blocks') return 'Block';
  if (key === 'questions') return 'Question';
  const label = labelOf(key);
  return label.endsWith('s') ? label.slice(0, -1) : label;
}

/** The hint shown under a field: the schema's description, or its rule's wording, for a person. */
export function hintOf(key: string, schema: z.ZodType): string | undefined {
  const info = fieldInfo(key, schema);
  let text = info.description;
  if (!text) {
    // A named rule (a slug, a colour) says what it takes; an email, URL or currency needs no hint.
    const k = info.kind;
    if (k.k === 'text' && k.input === 'text' && k.declared !== 'currency') {
      const wording = ruleWording.get(defOf(info.inner));
      if (wording?.startsWith('must be ')) text = wording.slice('must be '.length);
    }
  }
  if (!text) return undefined;
  if (info.kind.k === 'money')
    // The control shows the amount in the currency's units: how the API counts it is not said.
    text = text
      .replace(/,?\s*(in|as) (integer )?minor units( \([^)]*\))?( of (the )?`?[a-z_]+`?)?/gi, '')
      .split(/(?<=\.)\s+/)
      .filter((s) => !/minor units|cents/i.test(s))
      .join(' ');
  text = text
    .replace(/`([a-z]+(?:_[a-z]+)+)`/g, (_, w: string) => labelOf(w).toLowerCase())
    .replace(/`([a-z]+)` coupons/g, (_, w: string) => `${enumWord(w).toLowerCase()} coupons`)
    .replace(/`/g, '')
    .replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (w) => labelOf(w).toLowerCase())
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return undefined;
  text = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
