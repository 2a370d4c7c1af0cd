/**
 * One value for a detail page or list cell, as a person reads it (displayValue): money in its
 * currency, instants in the school's zone, booleans Yes/No, enums in words, lists and nested
 * objects readable, nothing as "—". What a value is comes from its schema and the field's
 * declaration (fields-schema.ts).
 */
import { html } from 'hono/html';
import type { z } from 'zod';
import type { Html } from '../../layout.ts';
import {
  enumWord,
  type FieldContext,
  type FieldKind,
  fieldInfo,
  formatInstant,
  formatMoney,
  labelOf,
  variantOf,
} from './fields-schema.ts';

type Values = Readonly<Record<string, unknown>>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The currency an object's money is in: its own `currency` field, else the school's. */
function currencyOf(values: Values | undefined, fc: FieldContext): string {
  const c = values?.currency;
  return typeof c === 'string' && /^[A-Z]{3}$/.test(c) ? c : fc.currency;
}

const DASH = html`<span class="muted">—</span>`;

/** Options of displayValue: the field's name and the currency of its money. */
export interface DisplayOptions {
  readonly key?: string;
  /** The currency of a money value (an object's own `currency` is used for its fields). */
  readonly currency?: string;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

function displayNumber(
  kind: FieldKind | undefined,
  value: number,
  fc: FieldContext,
  currency: string,
): string {
  if (kind?.k === 'money') return formatMoney(value, currency, fc.locale);
  if (kind?.k === 'number' && kind.percent)
    return new Intl.NumberFormat(fc.locale, { style: 'percent', maximumFractionDigits: 2 }).format(
      value / 100,
    );
  return new Intl.NumberFormat(fc.locale).format(value);
}

function displayObject(shape: Record<string, z.ZodType> | undefined, value: Values, fc: FieldContext): Html {
  const currency = currencyOf(value, fc);
  const keys = shape && Object.keys(shape).length > 0 ? Object.keys(shape) : Object.keys(value);
  return html`<dl>${keys.map(
    (k) => html`<dt>${labelOf(k)}</dt><dd>${display(shape?.[k], value[k], fc, { key: k, currency }, 1)}</dd>`,
  )}</dl>`;
}

function display(
  schema: z.ZodType | undefined,
  value: unknown,
  fc: FieldContext,
  options: DisplayOptions,
  depth: number,
): Html {
  if (value === null || value === undefined || value === '') return DASH;
  const key = options.key ?? '';
  const info = schema ? fieldInfo(key, schema) : undefined;
  const kind = info?.kind;
  const currency = options.currency ?? fc.currency;
  if (typeof value === 'boolean') return html`${value ? 'Yes' : 'No'}`;
  if (typeof value === 'number') {
    return html`${displayNumber(kind, value, fc, currency)}`;
  }
  if (typeof value === 'string') {
    if (kind?.k === 'enum' || kind?.k === 'literal') return html`${enumWord(value)}`;
    if (
      kind?.k === 'datetime' ||
      (!kind && ISO_INSTANT.test(value)) ||
      (kind?.k === 'text' && ISO_INSTANT.test(value))
    )
      return html`<time datetime="${value}">${formatInstant(value, fc)}</time>`;
    if (kind?.k === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(value))
      return html`${new Intl.DateTimeFormat(fc.locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(Date.parse(value))}`;
    if ((kind?.k === 'text' && kind.input === 'url') || (!kind && /^https?:\/\/\S+$/.test(value)))
      return /^https?:\/\//i.test(value)
        ? html`<a href="${value}" rel="noopener noreferrer">${value}</a>`
        : html`${value}`;
    if (kind?.k === 'text' && kind.long && value.includes('\n'))
      return html`<span class="prose">${value}</span>`;
    return html`${value}`;
  }
  if (depth > 6) return html`…`;
  if (Array.isArray(value)) {
    if (value.length === 0) return DASH;
    const item = kind?.k === 'list' && schema ? elementOf(schema) : undefined;
    if (value.every((v) => typeof v !== 'object' || v === null))
      return html`${value.map((v, i) => html`${i > 0 ? ', ' : ''}${display(item, v, fc, { key, currency }, depth + 1)}`)}`;
    return html`<ol>${value.map((v) => html`<li>${display(item, v, fc, { key, currency }, depth + 1)}</li>`)}</ol>`;
  }
  if (isRecord(value)) {
    let shape: Record<string, z.ZodType> | undefined;
    if (kind?.k === 'object') shape = { ...variantOf(kind, value)?.shape };
    return displayObject(shape, value, fc);
  }
  return html`${String(value)}`;
}

/** The element schema of a list schema (through wrappers). */
function elementOf(schema: z.ZodType): z.ZodType | undefined {
  const inner = fieldInfo('', schema).inner;
  // biome-ignore lint/suspicious/noExplicitAny: the element of a zod array definition
  return (inner._zod.def as any).element as z.ZodType | undefined;
}

/**
 * One value for a detail page or list cell, as a person reads it: money formatted in the
 * currency, instants in the school's zone, booleans Yes/No, enums as words, lists and nested
 * objects readable, nothing as "—". `schema` may be undefined: the value's own type decides then.
 */
export function displayValue(
  schema: z.ZodType | undefined,
  value: unknown,
  fc: FieldContext,
  options: DisplayOptions = {},
): Html {
  return display(schema, value, fc, options, 0);
}
