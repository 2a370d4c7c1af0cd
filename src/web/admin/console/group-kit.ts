/**
 * What the generated pages of a group share: its operations' parameters, reading one item (an
 * unknown id, another school's and one the schema refuses are the same 404), the names behind
 * the id fields, and a refused form's errors by field.
 */
import type { z } from 'zod';
import type { AdminOperation } from '../../../admin/define-operation.ts';
import { ProblemError } from '../../../errors/problem-error.ts';
import { PageRefusal } from '../../shared/refusal.ts';
import type { Area } from '../area.ts';
import type { ConsoleContext } from '../console-env.ts';
import { runForConsole } from '../console-kit.ts';
import { type FieldErrorOptions, fieldErrorsOf } from './field-errors.ts';
import type { FieldContext } from './fields-schema.ts';
import { fieldInfo, shapeOf } from './fields-schema.ts';
import { CHOICES_LIMIT, type ConsoleGroup, type Item, sourcesOf } from './registry.ts';
import { type Choices, groupPath, type Names } from './views.ts';

/** The school's money, language and time zone, in which every field is shown and read. */
export function fieldContext(area: Area): FieldContext {
  return { currency: area.school.currency, locale: area.school.locale, timeZone: area.school.timezone };
}

const paramNames = (op: AdminOperation) => [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** An operation's path parameters from the page's ids, in order. */
export function paramsOf(op: AdminOperation, ...ids: string[]): Record<string, string> {
  return Object.fromEntries(paramNames(op).map((name, i) => [name, ids[i] ?? '']));
}

/** The page of a list operation as `{ data, next_cursor }`. */
export interface ListBody {
  readonly data: Item[];
  readonly next_cursor: string | null;
}

/** Runs a catalogue operation for the person in the console. */
export function run(
  c: ConsoleContext,
  name: string,
  raw: Parameters<typeof runForConsole>[3],
  options?: Parameters<typeof runForConsole>[4],
) {
  return runForConsole(c.var.app, c.var.area, name, raw, options);
}

/** The group's 404: no such item at this school. */
export function notFound(c: ConsoleContext, group: ConsoleGroup): PageRefusal {
  const { area } = c.var;
  return new PageRefusal(
    404,
    `No such ${group.noun} at this school`,
    `There is no such ${group.noun} at ${area.school.name}. It may have been deleted, or the link may be wrong.`,
    { links: [{ href: groupPath(area, group), label: `Back to ${group.name.toLowerCase()}` }] },
  );
}

/** An operation's refusal as a page of the group, titled `title`. */
export function refused(
  c: ConsoleContext,
  group: ConsoleGroup,
  err: ProblemError,
  title: string,
): PageRefusal {
  return new PageRefusal(err.status, title, err.detail ?? err.title, {
    links: [{ href: groupPath(c.var.area, group), label: `Back to ${group.name.toLowerCase()}` }],
  });
}

/** One item of the group with its ETag; an unknown id, another school's, or one the schema refuses is the 404. */
export async function readItem(
  c: ConsoleContext,
  group: ConsoleGroup,
  id: string,
): Promise<{ item: Item; etag: string }> {
  if (!group.get) throw notFound(c, group);
  try {
    const r = await run(c, group.get.name, { params: paramsOf(group.get, id) });
    return { item: r.body as Item, etag: r.etag ?? '' };
  } catch (err) {
    if (err instanceof ProblemError && (err.status === 404 || err.status === 422)) throw notFound(c, group);
    throw err;
  }
}

/** The first CHOICES_LIMIT items of a list operation; none when the person may not list them. */
async function choiceItems(c: ConsoleContext, list: string): Promise<Item[]> {
  try {
    const r = await run(c, list, { query: { limit: String(CHOICES_LIMIT) } });
    return (r.body as ListBody).data;
  } catch (err) {
    if (!(err instanceof ProblemError)) throw err;
    return [];
  }
}

/** The names behind the id fields among `keys`: choices for forms, names for pages. */
export async function namesFor(
  c: ConsoleContext,
  keys: Iterable<string>,
): Promise<{ choices: Choices; names: Names }> {
  const choices: Choices = {};
  const names: Names = {};
  const loaded = new Map<string, Item[]>();
  for (const key of new Set(keys)) {
    const sources = sourcesOf(key);
    if (!sources) continue;
    const options: { value: string; label: string }[] = [];
    for (const source of sources) {
      let items = loaded.get(source.list);
      if (!items) {
        items = await choiceItems(c, source.list);
        loaded.set(source.list, items);
      }
      options.push(...items.map((i) => ({ value: String(i[source.value]), label: source.label(i) })));
    }
    choices[key] = options;
    names[key] = new Map(options.map((o) => [o.value, o.label]));
  }
  return { choices, names };
}

/** The body schema of an operation, if it takes one. */
const bodyOf = (op: AdminOperation | undefined): z.ZodType | undefined => op?.input.body;

/** The body schema of an operation that takes one (a create, an update, an action with fields). */
export function bodySchema(op: AdminOperation): z.ZodType {
  if (!op.input.body) throw new Error(`${op.name} takes no body`);
  return op.input.body;
}

/** A body's field names and, for lists and objects of objects, their fields' paths (`applies_to.id`). */
export function fieldPaths(op: AdminOperation | undefined): string[] {
  const out: string[] = [];
  for (const [key, rule] of Object.entries(shapeOf(bodyOf(op)))) {
    out.push(key);
    const kind = fieldInfo(key, rule).kind;
    const inner = kind.k === 'list' ? kind.item : kind;
    if (inner.k !== 'object') continue;
    for (const variant of inner.variants)
      for (const sub of Object.keys(variant.shape)) out.push(`${key}.${sub}`);
  }
  return out;
}

/** The fields of an item, of the objects in its lists, and `.id` paths, for the names on its page. */
export const itemKeys = (item: Item) =>
  Object.entries(item).flatMap(([k, v]) => [
    k,
    `${k}.id`,
    ...(Array.isArray(v) ? v.flatMap((x) => (x && typeof x === 'object' ? Object.keys(x) : [])) : []),
  ]);

/** An item as the values of its edit form: `lecturers[].id` fills `lecturer_ids`, `course.id` `course_id`. */
export function formValuesOf(group: ConsoleGroup, item: Item): Item {
  const out: Item = {};
  for (const key of Object.keys(shapeOf(bodyOf(group.update)))) {
    const many = key.endsWith('_ids') ? item[`${key.slice(0, -4)}s`] : undefined;
    const one = key.endsWith('_id') ? item[key.slice(0, -3)] : undefined;
    if (key in item) out[key] = item[key];
    else if (Array.isArray(many)) out[key] = (many as Item[]).map((x) => x.id);
    else if (one && typeof one === 'object') out[key] = (one as Item).id;
  }
  return out;
}

/**
 * A refused form's errors by field (an amount's bounds as money, read with the body's schema);
 * a refusal without fields is said above the form.
 */
export function formErrors(
  group: ConsoleGroup,
  err: ProblemError,
  options: FieldErrorOptions = {},
): Record<string, string> {
  if (err.code === 'idempotency_key_reused') {
    return { '': `This form was already used to create a ${group.noun}. Open a new form to create another.` };
  }
  const errors = fieldErrorsOf(err, options);
  return Object.keys(errors).length > 0 ? errors : { '': err.detail ?? err.title };
}
