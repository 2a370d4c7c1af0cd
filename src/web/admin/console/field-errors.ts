/**
 * A refused operation's field errors as sentences beside the fields they name. A schema's
 * refusal carries zod's issue code and bounds (errors/problem-error.ts `fieldRuleOf`), worded
 * here in the school's money; a rule the domain words itself (a slug, a colour) says its own
 * wording; the domain's own checks arrive as sentences already. Nothing here reads zod's English.
 */

import type { z } from 'zod';
import { ruleWording } from '../../../domain/kernel/fields.ts';
import { type FieldError, type FieldRule, fieldRuleOf } from '../../../errors/problem-error.ts';
import {
  enumWord,
  type FieldContext,
  fieldInfo,
  formatMoney,
  itemLabel,
  labelOf,
  schemaAt,
  unwrap,
} from './fields-schema.ts';

/** How a bound reads: as money for an amount, as a number otherwise. */
type Bound = (n: number) => string;

const COUNTED: Record<string, [one: string, many: string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
};

function tooSmall(rule: FieldRule, bound: Bound): string {
  const n = rule.minimum ?? 0;
  const counted = rule.origin ? COUNTED[rule.origin] : undefined;
  if (!counted) return rule.inclusive ? `must be at least ${bound(n)}` : `must be more than ${bound(n)}`;
  if (n <= 1) return rule.origin === 'string' ? 'must not be empty' : 'must have at least one item';
  return `must have at least ${n} ${counted[1]}`;
}

function tooBig(rule: FieldRule, bound: Bound): string {
  const n = rule.maximum ?? 0;
  const counted = rule.origin ? COUNTED[rule.origin] : undefined;
  if (!counted) return rule.inclusive ? `must be at most ${bound(n)}` : `must be less than ${bound(n)}`;
  const verb = rule.origin === 'string' ? 'must have' : 'can have';
  return `${verb} at most ${n} ${n === 1 ? counted[0] : counted[1]}`;
}

const TYPES: Record<string, string> = {
  number: 'must be a number',
  int: 'must be a whole number',
  boolean: 'must be yes or no',
  array: 'must be a list',
};

const FORMATS: Record<string, string> = {
  email: 'must be an email address',
  datetime: 'must be a date and time',
  date: 'must be a date',
  url: 'must be a web address (URL)',
};

/** A schema's rule in words: its declared wording, else its code and bounds. */
function ruleWords(rule: FieldRule, schema: z.ZodType | undefined, bound: Bound, message: string): string {
  if (rule.code === 'invalid_type' && rule.missing) return 'is required';
  // A rule the domain words itself (a slug, a colour, a URL) says what it takes.
  const named =
    schema &&
    unwrap(schema)
      .seen.map((s) => ruleWording.get(s._zod.def))
      .find(Boolean);
  switch (rule.code) {
    case 'too_small':
      return tooSmall(rule, bound);
    case 'too_big':
      return tooBig(rule, bound);
    case 'invalid_type':
      return TYPES[rule.expected ?? ''] ?? 'is not valid';
    case 'invalid_value':
      return `must be one of ${(rule.values ?? []).map(enumWord).join(', ')}`;
    case 'invalid_format':
      return named ?? FORMATS[rule.format ?? ''] ?? 'is not in the right form';
    case 'custom':
      // A refinement's message is the sentence its author wrote for people.
      return named ?? message;
    default:
      return named ?? 'is not valid';
  }
}

/** Whether a sentence about a field can start with its label ("must…", "is…", "can…"). */
const followsLabel = (s: string) =>
  /^(must|is|are|can|cannot|has|have|should|may|was|already|does)\b/.test(s);

const sentence = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}`;

/** What lets fieldErrorsOf say an amount's bounds as money: the body's schema and the school's ways. */
export interface FieldErrorOptions {
  readonly schema?: z.ZodType;
  readonly fc?: FieldContext;
  /** The values sent, for the currency the body names. */
  readonly values?: Readonly<Record<string, unknown>>;
}

/** One error's sentence without its label. */
function rest(e: FieldError, key: string, named: string, options: FieldErrorOptions): string {
  const rule = fieldRuleOf(e);
  if (!rule) {
    // The domain's own sentence ("must be unique at this school"), after the label.
    const m = e.message.trim().replace(/\.$/, '');
    return m.charAt(0).toLowerCase() + m.slice(1);
  }
  const { schema, fc } = options;
  const at = schema ? schemaAt(schema, key) : undefined;
  const money = at && fc && fieldInfo(named, at).kind.k === 'money';
  const currency = typeof options.values?.currency === 'string' ? options.values.currency : fc?.currency;
  const bound: Bound = money && fc && currency ? (n) => formatMoney(n, currency, fc.locale) : String;
  return ruleWords(rule, at, bound, e.message.replace(/\.$/, ''));
}

/**
 * A refused operation's field errors keyed by form field name (`body.price_amount` →
 * `price_amount`, `body.blocks.2.text` → `blocks.2.text`), each a sentence with the field's
 * label ("Price must be at least €0.00."); what names no field goes under `''` (the form's error).
 */
export function fieldErrorsOf(
  err: { errors?: readonly FieldError[]; detail?: string; title: string },
  options: FieldErrorOptions = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (key: string, text: string) => {
    out[key] = Object.hasOwn(out, key) && !out[key].includes(text) ? `${out[key]} ${text}` : text;
  };
  for (const e of err.errors ?? []) {
    const key = e.field.replace(/^(body|query|params)(\.|$)/, '');
    if (e.message === 'is not a known field') {
      add('', 'The form sent a field this operation does not take.');
      continue;
    }
    const named = [...key.split('.')].reverse().find((p) => !/^\d+$/.test(p)) ?? key;
    const words = rest(e, key, named, options);
    if (key === '') {
      add('', sentence(words));
      continue;
    }
    const row = /\.(\d+)$/.exec(key);
    const label = row ? `${itemLabel(named)} ${Number(row[1]) + 1}` : labelOf(named);
    add(key, followsLabel(words) ? `${label} ${words}.` : `${label}: ${words}.`);
  }
  if ((err.errors ?? []).length === 0) add('', err.detail ?? err.title);
  return out;
}
