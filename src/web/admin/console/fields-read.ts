/**
 * A submitted console form read back into the body its operation takes: text to numbers,
 * amounts to minor units, wall-clock times in the school's zone to UTC instants, checkboxes to
 * booleans, lines to lists, numbered rows to lists of objects. Only what the text cannot be is
 * refused here (a number field that holds no number); every rule of the value itself is the
 * operation's to check, with the same schema as the API.
 */
import type { z } from 'zod';
import { fromLocalInput } from '../../shared/school-format.ts';
import {
  type FieldContext,
  type FieldInfo,
  type FieldKind,
  fieldInfo,
  isIgnoredField,
  itemLabel,
  labelOf,
  parseMoney,
  shapeOf,
} from './fields-schema.ts';

/** Most items a list field or list of rows is read with; a longer one is refused, never cut. */
const MAX_LIST_ITEMS = 500;

/** Longest text read into any field (the longest rule any body field has is 200 000). */
const MAX_TEXT = 200_000;

type Read = { value: unknown; error?: string } | undefined;

interface State {
  readonly form: URLSearchParams;
  readonly fc: FieldContext;
  readonly errors: Record<string, string>;
  readonly index: FormIndex;
}

const sentence = (label: string, rest: string) => `${label} ${rest}.`;

/**
 * What the form's keys say, found in one pass so that reading stays linear in the size of the
 * form however many rows it claims: the row numbers sent under each list name, the lists that
 * claim more rows than any form offers, and which names have something typed under them.
 */
interface FormIndex {
  readonly rows: Map<string, number[]>;
  readonly overfull: Set<string>;
  /** The fields directly under a name (`blocks.0` → `heading`) that hold something. */
  readonly filledFields: Map<string, Set<string>>;
  /** The names with something typed deeper than one field under them. */
  readonly filledDeep: Set<string>;
}

function indexForm(form: URLSearchParams): FormIndex {
  const found = new Map<string, Set<number>>();
  const overfull = new Set<string>();
  const filledFields = new Map<string, Set<string>>();
  const filledDeep = new Set<string>();
  for (const [key, value] of form) {
    const parts = key.split('.');
    if (parts.length > 12) continue;
    for (let i = 1; i < parts.length - 1; i++) {
      if (!/^\d{1,6}$/.test(parts[i])) continue;
      const list = parts.slice(0, i).join('.');
      const set = found.get(list) ?? new Set<number>();
      found.set(list, set);
      if (set.size < MAX_LIST_ITEMS * 2) set.add(Number(parts[i]));
      else if (!set.has(Number(parts[i]))) overfull.add(list);
    }
    if (value === 'false' || value.trim() === '') continue;
    for (let i = 1; i < parts.length; i++) {
      const name = parts.slice(0, i).join('.');
      if (i === parts.length - 1) {
        const fields = filledFields.get(name) ?? new Set<string>();
        filledFields.set(name, fields);
        if (fields.size < 64) fields.add(parts[i]);
      } else filledDeep.add(name);
    }
  }
  const rows = new Map([...found].map(([k, v]) => [k, [...v].sort((a, b) => a - b)]));
  return { rows, overfull, filledFields, filledDeep };
}

/** An empty value of a field that may be left out: null when it may be null, else nothing. */
function emptyOf(info: FieldInfo): Read {
  if (info.nullable) return { value: null };
  return undefined;
}

function readScalar(
  kind: FieldKind,
  info: FieldInfo,
  raw: string,
  label: string,
  state: State,
  currency: string,
): Read {
  const text = raw.length > MAX_TEXT ? raw.slice(0, MAX_TEXT) : raw;
  if (raw.length > MAX_TEXT)
    return { value: text, error: sentence(label, `must have at most ${MAX_TEXT} characters`) };
  const trimmed = text.trim();
  if (trimmed === '') {
    if (kind.k === 'text' && kind.acceptsEmpty && !info.nullable) return { value: '' };
    return emptyOf(info) ?? { value: undefined };
  }
  switch (kind.k) {
    case 'money': {
      const r = parseMoney(trimmed, currency, state.fc.locale);
      return r.ok ? { value: r.value } : { value: text, error: sentence(label, r.message) };
    }
    case 'number': {
      if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(trimmed))
        return {
          value: text,
          error: sentence(label, kind.int ? 'must be a whole number' : 'must be a number'),
        };
      const n = Number(trimmed);
      if (!Number.isFinite(n)) return { value: text, error: sentence(label, 'must be a number') };
      if (kind.int && !Number.isInteger(n))
        return { value: text, error: sentence(label, 'must be a whole number') };
      return { value: n };
    }
    case 'datetime': {
      if (/(Z|[+-]\d{2}:?\d{2})$/i.test(trimmed) && !Number.isNaN(Date.parse(trimmed)))
        return { value: new Date(Date.parse(trimmed)).toISOString() };
      const iso = fromLocalInput(trimmed, state.fc.timeZone);
      return iso ? { value: iso } : { value: text, error: sentence(label, 'must be a date and time') };
    }
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(trimmed) && !Number.isNaN(Date.parse(trimmed))
        ? { value: trimmed }
        : { value: text, error: sentence(label, 'must be a date') };
    case 'enum':
      return kind.options.includes(trimmed)
        ? { value: trimmed }
        : { value: '', error: sentence(label, 'must be one of the choices offered') };
    case 'boolean':
      return { value: trimmed === 'true' || trimmed === 'on' };
    default:
      return { value: text };
  }
}

/** The lines (or checked boxes) of a list field, as items of its element's kind. */
function readList(
  kind: Extract<FieldKind, { k: 'list' }>,
  info: FieldInfo,
  name: string,
  label: string,
  state: State,
  currency: string,
): Read {
  const sent = state.form.getAll(name);
  if (sent.length === 0) return undefined;
  const lines: string[] = [];
  for (const v of sent) {
    for (const line of v.split(/\r?\n/)) {
      const t = line.trim();
      if (t !== '') lines.push(t);
      if (lines.length > MAX_LIST_ITEMS) break;
    }
    if (lines.length > MAX_LIST_ITEMS) break;
  }
  const limit = Math.min(kind.max ?? MAX_LIST_ITEMS, MAX_LIST_ITEMS);
  if (lines.length > limit)
    return { value: lines.slice(0, limit), error: sentence(label, `can have at most ${limit} items`) };
  if (lines.length === 0 && info.nullable) return { value: null };
  const items: unknown[] = [];
  for (const line of lines) {
    const r = readScalar(kind.item, { ...info, nullable: false }, line, label, state, currency);
    if (r?.error) return { value: lines, error: r.error };
    if (r && r.value !== undefined) items.push(r.value);
  }
  return { value: items };
}

/** Whether nothing was typed in a row (its hidden markers and its type alone do not count). */
function rowIsEmpty(index: FormIndex, rowName: string, discriminator: string | undefined): boolean {
  if (index.filledDeep.has(rowName)) return false;
  const fields = index.filledFields.get(rowName);
  return !fields || [...fields].every((f) => f === discriminator || f === '_remove');
}

/** One object (a row or a nested object) read under `prefix`, its errors under its new name. */
function readObject(
  kind: Extract<FieldKind, { k: 'object' }>,
  prefix: string,
  outName: string,
  label: string,
  state: State,
): { body: Record<string, unknown>; values: Record<string, unknown>; ok: boolean } {
  const body: Record<string, unknown> = {};
  const values: Record<string, unknown> = {};
  let ok = true;
  const disc = kind.discriminator;
  let shape = kind.variants[0]?.shape ?? {};
  if (disc) {
    const tag = state.form.get(`${prefix}.${disc}`)?.trim() ?? '';
    const variant = kind.variants.find((v) => v.tag === tag);
    if (!variant) {
      state.errors[`${outName}.${disc}`] = `${label}: choose its type.`;
      // Keep what was typed in every field any variant has, to show the form again.
      for (const v of kind.variants)
        for (const key of Object.keys(v.shape)) {
          const sent = state.form.get(`${prefix}.${key}`);
          if (sent !== null && key !== disc) values[key] = sent.slice(0, MAX_TEXT);
        }
      return { body, values, ok: false };
    }
    shape = variant.shape;
    body[disc] = tag;
    values[disc] = tag;
  }
  const r = readShape(shape, prefix, outName, state, new Set(disc ? [disc] : []));
  Object.assign(body, r.body);
  Object.assign(values, r.values);
  ok = r.ok;
  return { body, values, ok };
}

function readField(info: FieldInfo, name: string, outName: string, state: State, currency: string): Read {
  const kind = info.kind;
  const label = labelOf(info.key);
  switch (kind.k) {
    case 'literal':
      return { value: kind.value };
    case 'boolean': {
      const sent = state.form.getAll(name);
      if (sent.length === 0) return undefined;
      return { value: sent.includes('true') || sent.includes('on') };
    }
    case 'list': {
      if (kind.item.k !== 'object') return readList(kind, info, name, label, state, currency);
      if (!state.form.has(name) && !state.index.rows.has(name)) return undefined;
      if (state.index.overfull.has(name)) {
        state.errors[outName] = sentence(label, `can have at most ${MAX_LIST_ITEMS} items`);
        return { value: [], error: state.errors[outName] };
      }
      const numbers = state.index.rows.get(name) ?? [];
      const items: unknown[] = [];
      const values: unknown[] = [];
      let ok = true;
      const one = itemLabel(info.key);
      for (const n of numbers) {
        const rowName = `${name}.${n}`;
        if (state.form.getAll(`${rowName}._remove`).includes('true')) continue;
        if (rowIsEmpty(state.index, rowName, kind.item.discriminator)) continue;
        if (items.length >= MAX_LIST_ITEMS) {
          state.errors[outName] = sentence(label, `can have at most ${MAX_LIST_ITEMS} items`);
          return { value: values, error: state.errors[outName] };
        }
        const at = `${outName}.${items.length}`;
        const r = readObject(kind.item, rowName, at, `${one} ${items.length + 1}`, state);
        ok &&= r.ok;
        items.push(r.body);
        values.push(r.values);
      }
      if (!ok) return { value: values, error: '' };
      if (items.length === 0 && info.nullable) return { value: null };
      return { value: items };
    }
    case 'object': {
      if (!state.form.has(name) && ![...state.form.keys()].some((k) => k.startsWith(`${name}.`)))
        return undefined;
      // An object that may be left out and was left empty is left out (or null).
      if ((info.optional || info.nullable) && rowIsEmpty(state.index, name, kind.discriminator))
        return emptyOf(info);
      const r = readObject(kind, name, outName, label, state);
      return r.ok ? { value: r.body } : { value: r.values, error: '' };
    }
    default: {
      const raw = state.form.get(name);
      if (raw === null) return undefined;
      return readScalar(kind, info, raw, label, state, currency);
    }
  }
}

function readShape(
  shape: Readonly<Record<string, z.ZodType>>,
  prefix: string | undefined,
  outPrefix: string | undefined,
  state: State,
  skip: ReadonlySet<string>,
): { body: Record<string, unknown>; values: Record<string, unknown>; ok: boolean } {
  const body: Record<string, unknown> = {};
  const values: Record<string, unknown> = {};
  let ok = true;
  // Money is in the currency the form names for it, else the school's.
  const sentCurrency = state.form.get(prefix ? `${prefix}.currency` : 'currency')?.trim() ?? '';
  const currency = 'currency' in shape && /^[A-Z]{3}$/.test(sentCurrency) ? sentCurrency : state.fc.currency;
  for (const [key, rule] of Object.entries(shape)) {
    if (skip.has(key)) continue;
    const info = fieldInfo(key, rule);
    if (isIgnoredField(info)) continue;
    const name = prefix ? `${prefix}.${key}` : key;
    const outName = outPrefix ? `${outPrefix}.${key}` : key;
    const r = readField(info, name, outName, state, currency);
    if (!r) continue;
    if (r.error !== undefined) {
      ok = false;
      if (r.error) state.errors[outName] = r.error;
      values[key] = r.value;
      continue;
    }
    if (r.value === undefined) continue;
    body[key] = r.value;
    values[key] = r.value;
  }
  return { body, values, ok };
}

/**
 * Reads a submitted form back into the body the operation's schema takes. Every field the form
 * showed is sent (a PATCH of unchanged values is harmless), except an empty optional one: null
 * when the field may be null, left out otherwise (an empty text the rule allows is sent as "").
 * A checkbox the form showed and left unticked is false. What the text cannot be (a non-number
 * in a number field) comes back as an error per field, with the values as typed to show again.
 */
export function readFields(
  schema: z.ZodType,
  form: URLSearchParams,
  fc: FieldContext,
  options: { omit?: readonly string[] } = {},
):
  | { ok: true; body: Record<string, unknown> }
  | { ok: false; errors: Record<string, string>; values: Record<string, unknown> } {
  const state: State = { form, fc, errors: {}, index: indexForm(form) };
  const r = readShape(shapeOf(schema), undefined, undefined, state, new Set(options.omit ?? []));
  if (r.ok && Object.keys(state.errors).length === 0) return { ok: true, body: r.body };
  return { ok: false, errors: state.errors, values: r.values };
}
