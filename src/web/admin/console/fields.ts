/**
 * The operator console's forms and values, generated from the catalogue's zod schemas: one
 * control per body field with its label, hint and error beside it (formFields), the submitted
 * form read back into the body the operation takes (readFields, fields-read.ts), a refused
 * operation's errors put beside the fields they name (fieldErrorsOf), and one value shown as a
 * person reads it (displayValue). The schema is the only statement of each rule; nothing here
 * repeats a bound or a format it already states.
 */
import { html, raw } from 'hono/html';
import type { z } from 'zod';
import type { Html } from '../../layout.ts';
import { notice } from '../../shared/page-kit.ts';
import { toLocalInput } from '../../shared/school-format.ts';
import {
  type Choice,
  checkboxList,
  currencyChoices,
  describedBy,
  errorP,
  hintP,
  labelText,
  select,
  timeZoneChoices,
} from './field-controls.ts';
import {
  currencyAffix,
  enumWord,
  type FieldContext,
  type FieldInfo,
  type FieldKind,
  fieldInfo,
  hintOf,
  isIgnoredField,
  itemLabel,
  labelOf,
  moneyInputValue,
  type ObjectVariant,
  shapeOf,
  variantOf,
} from './fields-schema.ts';

export { displayValue } from './field-display.ts';
export { fieldErrorsOf } from './field-errors.ts';
export { readFields } from './fields-read.ts';
export { type FieldContext, hintOf, labelOf };

/** What a form may add to what the schema says. */
export interface FieldOptions {
  /** Top-level fields left out of the form. */
  readonly omit?: readonly string[];
  /**
   * Choices for reference fields, by field name (`course_id`, `lecturer_ids`) or by its path
   * without row numbers (`blocks.course_ids`, `applies_to.id`): a select for one, checkboxes
   * for a list, instead of a text box.
   */
  readonly choices?: Readonly<Record<string, readonly Choice[]>>;
  /** Empty rows offered under each list of objects for adding items (default 2). */
  readonly emptyRows?: number;
  /** Prefix of the ids of the controls (default `f`), for two forms on one page. */
  readonly idPrefix?: string;
}

type Values = Readonly<Record<string, unknown>>;

/** Rendering state: the school's conventions and the errors not yet shown beside a field. */
interface Ctx {
  readonly fc: FieldContext;
  readonly errors: Readonly<Record<string, string>>;
  readonly claimed: Set<string>;
  readonly options: FieldOptions;
  readonly idPrefix: string;
  /**
   * Inside a row of a list: `new` for an empty row offered for adding (nothing in it is
   * required), `existing` for an item; `list` is the list's field name.
   */
  readonly row?: { readonly state: 'new' | 'existing'; readonly list: string };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const idOf = (ctx: Ctx, name: string) => `${ctx.idPrefix}-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** The errors under `name` (itself, or anything inside it) not shown elsewhere yet. */
function claim(ctx: Ctx, name: string, inside = true): string | undefined {
  const out: string[] = [];
  for (const [key, message] of Object.entries(ctx.errors)) {
    if (key === '' || ctx.claimed.has(key)) continue;
    if (key === name || (inside && key.startsWith(`${name}.`))) {
      ctx.claimed.add(key);
      out.push(message);
    }
  }
  return out.length > 0 ? out.join(' ') : undefined;
}

/** The choices given for `name` (`blocks.3.course_ids` finds `blocks.course_ids` or `course_ids`). */
function choicesFor(ctx: Ctx, name: string): readonly Choice[] | undefined {
  const choices = ctx.options.choices;
  if (!choices) return undefined;
  const path = name.split('.').filter((p) => !/^\d+$/.test(p));
  for (let i = 0; i < path.length; i++) {
    const key = path.slice(i).join('.');
    if (Object.hasOwn(choices, key)) return choices[key];
  }
  return undefined;
}

/** The currency an object's money is in: its own `currency` field, else the school's. */
function currencyOf(values: Values | undefined, fc: FieldContext): string {
  const c = values?.currency;
  return typeof c === 'string' && /^[A-Z]{3}$/.test(c) ? c : fc.currency;
}

/** The text a control shows for `value` of a field of `kind`. */
function inputValue(kind: FieldKind, value: unknown, fc: FieldContext, currency: string): string {
  if (value === undefined || value === null) return '';
  if (kind.k === 'money' && typeof value === 'number') return moneyInputValue(value, currency, fc.locale);
  if (kind.k === 'datetime' && typeof value === 'string' && /(Z|[+-]\d{2}:?\d{2})$/i.test(value))
    return toLocalInput(value, fc.timeZone) ?? value;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** An amount's text box with the currency's symbol on the side the locale puts it. */
function moneyInput(
  id: string,
  name: string,
  current: string,
  symbol: string,
  before: boolean,
  attrs: Html,
): Html {
  const affix = html`<span class="affix" id="${id}-unit">${symbol}</span>`;
  return html`<div class="affixed">${before ? affix : ''}<input type="text" inputmode="decimal" autocomplete="off" id="${id}" name="${name}" value="${current}"${attrs}>${before ? '' : affix}</div>`;
}

/** A number box with the rule's bounds (and a % after a percentage). */
function numberInput(
  id: string,
  name: string,
  current: string,
  kind: Extract<FieldKind, { k: 'number' }>,
  attrs: Html,
): Html {
  const bounds = html`${kind.min !== undefined ? html` min="${kind.min}"` : ''}${kind.max !== undefined ? html` max="${kind.max}"` : ''} step="${kind.int ? '1' : 'any'}"`;
  const input = html`<input type="number" id="${id}" name="${name}" value="${current}"${bounds}${attrs}>`;
  return kind.percent ? html`<div class="affixed">${input}<span class="affix">%</span></div>` : input;
}

/** One field: label, control, hint and error, named `name` (`title`, `blocks.0.heading`). */
function renderField(
  ctx: Ctx,
  name: string,
  info: FieldInfo,
  schema: z.ZodType,
  value: unknown,
  siblings: Values | undefined,
  extraHint?: string,
  label = info.key === 'id' && ctx.row ? itemLabel(ctx.row.list) : labelOf(info.key),
): Html {
  const kind = info.kind;
  const id = idOf(ctx, name);
  // A field of a row is required of the row, not of the form: the browser must not insist.
  const required = !info.optional && !info.nullable && ctx.row?.state !== 'new';
  const requiredAttr = required && !ctx.row ? raw(' required') : '';
  const hint = [hintOf(info.key, schema), extraHint].filter(Boolean).join(' ') || undefined;
  const hintId = hint ? `${id}-hint` : undefined;
  if (kind.k === 'object') return renderObjectField(ctx, name, info, value, label, hint);
  if (kind.k === 'list' && kind.item.k === 'object')
    return renderRows(ctx, name, info, kind.item, value, label, hint);
  const error = claim(ctx, name);
  const errorId = error ? `${id}-error` : undefined;
  const invalid = error ? raw(' aria-invalid="true"') : '';
  const fc = ctx.fc;
  const choices = choicesFor(ctx, name);

  if (kind.k === 'literal') return html``;
  if (kind.k === 'boolean') {
    const on = value === true || value === 'true' || value === 'on';
    return html`<input type="hidden" name="${name}" value="false"><label class="check" for="${id}"><input type="checkbox" id="${id}" name="${name}" value="true"${on ? raw(' checked') : ''}${describedBy([hintId, errorId])}${invalid}> ${label}</label>${hintP(id, hint)}${errorP(id, error)}`;
  }
  if (kind.k === 'list' && (kind.item.k === 'enum' || choices)) {
    const options: readonly Choice[] =
      kind.item.k === 'enum'
        ? kind.item.options.map((o) => ({ value: o, label: enumWord(o) }))
        : (choices ?? []);
    const legend = labelText(label, required);
    return checkboxList(
      { id, name, legend, hint, error },
      options,
      Array.isArray(value) ? value.map(String) : [],
    );
  }
  const labelHtml = html`<label for="${id}">${labelText(label, required)}</label>`;
  const attrs = html`${requiredAttr}${describedBy([hintId, errorId])}${invalid}`;
  const after = html`${hintP(id, hint)}${errorP(id, error)}`;
  if (kind.k === 'list') {
    const text = Array.isArray(value) ? value.map(String).join('\n') : typeof value === 'string' ? value : '';
    const listHint = [hint, 'One per line.'].filter(Boolean).join(' ');
    return html`${labelHtml}<textarea id="${id}" name="${name}" rows="4" aria-describedby="${id}-hint${errorId ? ` ${errorId}` : ''}"${requiredAttr}${invalid}>${text}</textarea><p class="hint" id="${id}-hint">${listHint}</p>${errorP(id, error)}`;
  }
  const current = inputValue(kind, value, fc, currencyOf(siblings, fc));
  if (choices) return html`${labelHtml}${select(id, name, choices, current, !required, attrs)}${after}`;
  if (kind.k === 'enum') {
    const options = kind.options.map((o) => ({ value: o, label: enumWord(o) }));
    return html`${labelHtml}${select(id, name, options, current, !required, attrs)}${after}`;
  }
  if (kind.k === 'text' && kind.declared === 'currency')
    return html`${labelHtml}${select(id, name, currencyChoices(fc.locale), current, !required, attrs)}${after}`;
  if (kind.k === 'text' && kind.declared === 'time_zone')
    return html`${labelHtml}${select(id, name, timeZoneChoices(), current, !required, attrs)}${after}`;
  if (kind.k === 'money') {
    const { symbol, before } = currencyAffix(currencyOf(siblings, fc), fc.locale);
    const moneyAttrs = html`${requiredAttr}${describedBy([`${id}-unit`, hintId, errorId])}${invalid}`;
    return html`${labelHtml}${moneyInput(id, name, current, symbol, before, moneyAttrs)}${after}`;
  }
  if (kind.k === 'number') return html`${labelHtml}${numberInput(id, name, current, kind, attrs)}${after}`;
  if (kind.k === 'datetime') {
    const zoneHint = [hint, `Date and time in ${fc.timeZone.replace(/_/g, ' ')}.`].filter(Boolean).join(' ');
    return html`${labelHtml}<input type="datetime-local" id="${id}" name="${name}" value="${current}"${requiredAttr} aria-describedby="${id}-hint${errorId ? ` ${errorId}` : ''}"${invalid}><p class="hint" id="${id}-hint">${zoneHint}</p>${errorP(id, error)}`;
  }
  if (kind.k === 'date')
    return html`${labelHtml}<input type="date" id="${id}" name="${name}" value="${current}"${attrs}>${after}`;
  if (kind.k === 'text' && kind.long)
    return html`${labelHtml}<textarea id="${id}" name="${name}" rows="${(kind.max ?? 0) > 5000 ? 10 : 4}"${attrs}>${current}</textarea>${after}`;
  const type = kind.k === 'text' ? kind.input : 'text';
  return html`${labelHtml}<input type="${type}" id="${id}" name="${name}" value="${current}"${type === 'email' ? raw(' autocomplete="email"') : ''}${attrs}>${after}`;
}

/** The fields of every variant, once each, with the variants that use them (for an empty row). */
function mergedShape(variants: readonly ObjectVariant[], discriminator: string) {
  const out = new Map<string, { schema: z.ZodType; tags: string[] }>();
  for (const v of variants)
    for (const [key, schema] of Object.entries(v.shape)) {
      if (key === discriminator) continue;
      const seen = out.get(key);
      if (seen) seen.tags.push(v.tag ?? '');
      else out.set(key, { schema, tags: [v.tag ?? ''] });
    }
  return out;
}

/** The fields of one object (a row of a list, or a nested object) under `prefix`. */
function objectBody(
  ctx: Ctx,
  prefix: string,
  kind: Extract<FieldKind, { k: 'object' }>,
  value: Values | undefined,
  typeLabel: string,
): Html {
  const disc = kind.discriminator;
  const variant = variantOf(kind, value);
  const parts: Html[] = [];
  if (disc) {
    const tags = kind.variants.map((v) => ({ value: v.tag ?? '', label: enumWord(v.tag ?? '') }));
    const name = `${prefix}.${disc}`;
    const id = idOf(ctx, name);
    const error = claim(ctx, name);
    parts.push(
      html`<label for="${id}">${typeLabel}</label>${select(id, name, tags, typeof value?.[disc] === 'string' ? (value[disc] as string) : '', true, html`${error ? html` aria-describedby="${id}-error" aria-invalid="true"` : ''}`)}${errorP(id, error)}`,
    );
  }
  if (variant) {
    for (const [key, schema] of Object.entries(variant.shape)) {
      if (key === disc) continue;
      const info = fieldInfo(key, schema);
      parts.push(renderField(ctx, `${prefix}.${key}`, info, schema, value?.[key], value));
    }
  } else if (disc) {
    for (const [key, { schema, tags }] of mergedShape(kind.variants, disc)) {
      const info = fieldInfo(key, schema);
      const loose = { ...info, optional: true };
      const usedBy =
        tags.length < kind.variants.length
          ? `For ${tags.map((t) => enumWord(t).toLowerCase()).join(', ')}.`
          : undefined;
      parts.push(renderField(ctx, `${prefix}.${key}`, loose, schema, value?.[key], value, usedBy));
    }
  }
  return html`${parts}`;
}

/** A nested object: its fields in a fieldset under the field's label. */
function renderObjectField(
  ctx: Ctx,
  name: string,
  info: FieldInfo,
  value: unknown,
  label: string,
  hint: string | undefined,
): Html {
  const kind = info.kind as Extract<FieldKind, { k: 'object' }>;
  const id = idOf(ctx, name);
  // The fields of an object that may be left out are required only when it is filled in.
  const inner =
    info.optional || info.nullable ? { ...ctx, row: { state: 'new', list: info.key } as const } : ctx;
  const body = objectBody(inner, name, kind, isRecord(value) ? value : undefined, 'Type');
  const error = claim(ctx, name);
  return html`<fieldset id="${id}"${describedBy([hint ? `${id}-hint` : undefined, error ? `${id}-error` : undefined])}><legend>${label}</legend><input type="hidden" name="${name}" value="">${hintP(id, hint)}${body}${errorP(id, error)}</fieldset>`;
}

/** A list of objects: each item in its own fieldset, then empty ones to add more. */
function renderRows(
  ctx: Ctx,
  name: string,
  info: FieldInfo,
  kind: Extract<FieldKind, { k: 'object' }>,
  value: unknown,
  label: string,
  hint: string | undefined,
): Html {
  const items = Array.isArray(value) ? value.slice(0, 500) : [];
  const one = itemLabel(info.key);
  // Each empty row of a list of several kinds shows every kind's fields: one is enough.
  const empty = ctx.options.emptyRows ?? (kind.discriminator ? 1 : 2);
  const id = idOf(ctx, name);
  const rows: Html[] = [];
  for (let i = 0; i < items.length + empty; i++) {
    const item = i < items.length && isRecord(items[i]) ? (items[i] as Values) : undefined;
    const rowName = `${name}.${i}`;
    const rowId = idOf(ctx, rowName);
    const row = { state: i < items.length ? 'existing' : 'new', list: info.key } as const;
    const body = objectBody({ ...ctx, row }, rowName, kind, item, `${one} type`);
    const rowError = claim(ctx, rowName);
    const legend = i < items.length ? `${one} ${i + 1}` : `New ${one.toLowerCase()}`;
    const remove =
      i < items.length
        ? html`<label class="check" for="${rowId}-remove"><input type="checkbox" id="${rowId}-remove" name="${rowName}._remove" value="true"> Remove this ${one.toLowerCase()}</label>`
        : '';
    rows.push(
      html`<fieldset id="${rowId}"${rowError ? html` aria-describedby="${rowId}-error"` : ''}><legend>${legend}</legend>${body}${errorP(rowId, rowError)}${remove}</fieldset>`,
    );
  }
  const error = claim(ctx, name);
  const addHint = `Fill in a new ${one.toLowerCase()} to add it; empty ones are left out. Save to get more empty ones.`;
  return html`<fieldset id="${id}" aria-describedby="${id}-hint${error ? ` ${id}-error` : ''}"><legend>${label}</legend><input type="hidden" name="${name}" value=""><p class="hint" id="${id}-hint">${[hint, addHint].filter(Boolean).join(' ')}</p>${errorP(id, error)}${rows}</fieldset>`;
}

/**
 * Form controls for every field of an object schema (a request body), with current values and
 * errors beside the fields. `values` are the body's values as the API takes them (minor units,
 * ISO instants) or as typed (what readFields gives back). Errors the form has no field for
 * (an omitted field's) are listed above the fields; the form's own error (`''`) is the page's
 * to show.
 */
export function formFields(
  schema: z.ZodType,
  values: Values | undefined,
  errors: Readonly<Record<string, string>>,
  fc: FieldContext,
  options: FieldOptions = {},
): Html {
  const ctx: Ctx = { fc, errors, claimed: new Set(), options, idPrefix: options.idPrefix ?? 'f' };
  const omit = new Set(options.omit ?? []);
  const parts: Html[] = [];
  for (const [key, rule] of Object.entries(shapeOf(schema))) {
    if (omit.has(key)) continue;
    const info = fieldInfo(key, rule);
    if (isIgnoredField(info)) continue;
    const value = values?.[key] === undefined ? info.defaultValue : values[key];
    parts.push(renderField(ctx, key, info, rule, value, values));
  }
  const left = Object.entries(errors).filter(([k]) => k !== '' && !ctx.claimed.has(k));
  const rest =
    left.length > 0 ? notice('error', html`${left.map(([, m], i) => html`${i > 0 ? ' ' : ''}${m}`)}`) : '';
  return html`${rest}${parts}`;
}
