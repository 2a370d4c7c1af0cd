/**
 * The HTML of the console's generated pages: a group's list with its filters and paging, an
 * item's details with its actions and nested lists, the create and edit forms and the delete
 * confirmation. Values are shown in words and the school's money and time (fields.ts); an id is
 * shown as the name of what it points at, never as itself.
 */
import { html } from 'hono/html';
import type { z } from 'zod';
import type { Html } from '../../layout.ts';
import { csrfField, notice, type Viewer } from '../../shared/page-kit.ts';
import { type Area, areaNav, areaPath } from '../area.ts';
import { mayRun } from '../console-kit.ts';
import { displayValue } from './field-display.ts';
import { type FieldContext, formFields } from './fields.ts';
import { enumWord, fieldInfo, labelOf, shapeOf } from './fields-schema.ts';
import {
  type ActionOperation,
  type ConsoleGroup,
  type Item,
  itemSchema,
  type SubList,
  sourcesOf,
  titleOf,
} from './registry.ts';

/** Choices of names for id fields, as formFields takes them. */
export type Choices = Record<string, { value: string; label: string }[]>;

/** The words of a thing, capitalised: "membership plan" → "Membership plan". */
export const capital = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}`;

/** URLs of a group's pages. */
export function groupPath(area: Area, group: ConsoleGroup, rest = ''): string {
  return areaPath(area.school.id, `/${group.slug}${rest}`);
}

export function itemPath(area: Area, group: ConsoleGroup, id: string, rest = ''): string {
  return groupPath(area, group, group.single ? rest : `/${encodeURIComponent(id)}${rest}`);
}

const DONE: Record<string, string> = {
  created: 'Created.',
  saved: 'Saved.',
  deleted: 'Deleted.',
};

function doneNotice(group: ConsoleGroup, done: string | undefined): Html | string {
  if (!done) return '';
  const text = DONE[done] ?? 'Done.';
  return notice('success', done === 'deleted' ? `${capital(group.noun)} deleted.` : text);
}

export function page(area: Area, group: ConsoleGroup, body: Html): Html {
  return html`${areaNav(area, group.slug)}${body}`;
}

/** An item's id (every API object has one). */
export const idOf = (item: Item) => String(item.id ?? '');

const nameish = (v: Item): string | undefined => {
  const name = (v.name as string) || (v.title as string) || (v.code as string) || undefined;
  const email = typeof v.email === 'string' ? v.email : undefined;
  if (name && email) return `${name} (${email})`;
  return name ?? email ?? (typeof v.filename === 'string' ? v.filename : undefined);
};

/**
 * Whether a field is shown: never the item's own id, nor an id whose object is beside it
 * (`user_id` next to `user`), nor an id that no list here can name.
 */
function shown(item: Item, key: string): boolean {
  if (key === 'id') return false;
  const ref = /^(.*)_ids?$/.exec(key);
  if (!ref) return true;
  const beside = item[ref[1]] ?? item[`${ref[1]}s`];
  if (beside && typeof beside === 'object') return false;
  return sourcesOf(key) !== undefined;
}

/** Names behind ids, by field. */
export type Names = Record<string, Map<string, string>>;

const UNLISTED = 'Not on the first 100 of the list';

/** A value with the ids of its nested fields replaced by the names behind them. */
function withNames(value: unknown, names: Names): unknown {
  if (Array.isArray(value)) return value.map((v) => withNames(v, names));
  if (!value || typeof value !== 'object') return value;
  const out: Item = {};
  for (const [k, v] of Object.entries(value as Item)) {
    const known = names[k];
    if (known && typeof v === 'string') out[k] = known.get(v) ?? UNLISTED;
    // A block's or item's kind (`course_list`) as a word.
    else if (k === 'type' && typeof v === 'string') out[k] = enumWord(v);
    else if (known && Array.isArray(v) && v.every((x) => typeof x === 'string')) {
      out[k] = v.map((x) => known.get(x) ?? UNLISTED);
    } else out[k] = withNames(v, names);
  }
  return out;
}

/** One value in words. */
function cell(
  schema: z.ZodObject | undefined,
  item: Item,
  key: string,
  fc: FieldContext,
  names: Names,
): Html | string {
  const value = item[key];
  const known = names[key];
  if (known && (typeof value === 'string' || Array.isArray(value))) {
    const ids = Array.isArray(value) ? (value as string[]) : [value];
    if (ids.length === 0) return html`<span class="muted">None</span>`;
    return ids.map((id) => known.get(id) ?? UNLISTED).join(', ');
  }
  // A list of references (`applies_to: [{ type, id }]`): the names of their ids.
  const byId = names[`${key}.id`];
  if (byId && Array.isArray(value) && value.every((v) => v && typeof v === 'object' && 'id' in v)) {
    if (value.length === 0) return html`<span class="muted">None</span>`;
    return (value as Item[]).map((v) => byId.get(String(v.id)) ?? UNLISTED).join(', ');
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const name = nameish(value as Item);
    if (name) return name;
  }
  if (Array.isArray(value) && value.length > 0 && value.every((v) => v && typeof v === 'object')) {
    const words = (value as Item[]).map(nameish);
    if (words.every(Boolean)) return words.join(', ');
  }
  // Ids inside a list's objects (a page block's courses) are named too.
  if (Array.isArray(value)) {
    const currency = typeof item.currency === 'string' ? item.currency : undefined;
    return displayValue(shapeOf(schema)[key], withNames(value, names), fc, { key, currency });
  }
  // Money is in the item's own currency where it names one.
  const currency = typeof item.currency === 'string' ? item.currency : undefined;
  return displayValue(shapeOf(schema)[key], value, fc, { key, currency });
}

function filterControl(key: string, rule: z.ZodType, value: string, choices: Choices): Html | string {
  const id = `filter-${key}`;
  const label = html`<label for="${id}">${labelOf(key)}</label>`;
  const select = (options: { value: string; label: string }[]) =>
    html`${label}<select id="${id}" name="${key}"><option value="">Any</option>${options.map(
      (o) => html`<option value="${o.value}"${o.value === value ? html` selected` : ''}>${o.label}</option>`,
    )}</select>`;
  if (choices[key]) return select(choices[key]);
  if (/_ids?$/.test(key)) return '';
  const kind = fieldInfo(key, rule).kind;
  if (kind.k === 'enum') {
    if (kind.options.includes('true') && kind.options.includes('false')) {
      return select([
        { value: 'true', label: 'Yes' },
        { value: 'false', label: 'No' },
      ]);
    }
    return select(kind.options.map((o) => ({ value: o, label: enumWord(o) })));
  }
  if (kind.k === 'datetime' || kind.k === 'date') {
    return html`${label}<input type="date" id="${id}" name="${key}" value="${value}">`;
  }
  const type = key === 'search' ? 'search' : 'text';
  return html`${label}<input type="${type}" id="${id}" name="${key}" value="${value}">`;
}

/** The keys of a list's query a person can filter by (not its paging). */
export function filterKeys(group: ConsoleGroup, choices: Choices): string[] {
  const query = shapeOf(group.list?.input.query);
  return Object.keys(query).filter(
    (k) => k !== 'limit' && k !== 'cursor' && (!/_ids?$/.test(k) || (choices[k] ?? []).length > 0),
  );
}

/** A list page: the filters, one page of rows, and the way to the next and first pages. */
export function listPage(
  area: Area,
  group: ConsoleGroup,
  view: {
    items: readonly Item[];
    next: string | null;
    filters: Record<string, string>;
    paged: boolean;
    choices: Choices;
    names: Names;
    fc: FieldContext;
    done?: string;
    error?: string;
  },
): Html {
  const schema = itemSchema(group.list);
  const columns = (group.columns ?? []).filter((c) => schema && c in schema.shape);
  const first = group.title ? undefined : columns[0];
  const rest = group.title ? columns : columns.slice(1);
  const keys = filterKeys(group, view.choices);
  const filtered = Object.values(view.filters).some((v) => v !== '');
  const query = (extra: Record<string, string>) => {
    const q = new URLSearchParams(Object.entries({ ...view.filters, ...extra }).filter(([, v]) => v !== ''));
    const s = q.toString();
    return s ? `?${s}` : '';
  };
  const shape = shapeOf(group.list?.input.query);
  const filters =
    keys.length === 0
      ? ''
      : html`<form method="get" action="${groupPath(area, group)}" class="filters" aria-label="Filter ${group.name.toLowerCase()}">
<div class="filter-fields">${keys.map(
          (k) => html`<div>${filterControl(k, shape[k], view.filters[k] ?? '', view.choices)}</div>`,
        )}</div>
<div class="actions start"><button class="secondary small" type="submit">Filter</button>${
          filtered ? html`<a href="${groupPath(area, group)}">Clear filters</a>` : ''
        }</div>
</form>`;
  const header = first ? labelOf(first) : capital(group.noun);
  const rows = view.items.map(
    (item) =>
      html`<tr><td data-label="${header}"><a href="${itemPath(area, group, idOf(item))}">${titleOf(group, item)}</a></td>${rest.map(
        (k) => html`<td data-label="${labelOf(k)}">${cell(schema, item, k, view.fc, view.names)}</td>`,
      )}</tr>`,
  );
  const table =
    view.items.length === 0
      ? html`<p class="muted">${
          filtered
            ? `No ${group.name.toLowerCase()} match these filters.`
            : `No ${group.name.toLowerCase()} yet.`
        }</p>`
      : html`<table class="stack" aria-label="${group.name}">
<thead><tr><th scope="col">${header}</th>${rest.map((k) => html`<th scope="col">${labelOf(k)}</th>`)}</tr></thead>
<tbody>${rows}</tbody></table>`;
  const paging =
    view.next || view.paged
      ? html`<nav class="pager" aria-label="Pages of ${group.name.toLowerCase()}">${
          view.paged ? html`<a href="${groupPath(area, group, query({}))}">First page</a>` : ''
        }${view.next ? html`<a href="${groupPath(area, group, query({ cursor: view.next }))}">Next page</a>` : ''}</nav>`
      : '';
  return page(
    area,
    group,
    html`<h1>${group.name}</h1>
${doneNotice(group, view.done)}${view.error ? notice('error', view.error) : ''}
${group.create && mayRun(area, group.create.name) ? html`<p><a class="button" href="${groupPath(area, group, '/new')}">New ${group.noun}</a></p>` : ''}
${filters}
${table}
${paging}`,
  );
}

function actionLabel(verb: string, noun: string): string {
  return `${capital(enumWord(verb))} ${noun}`;
}

function actionForm(
  viewer: Viewer,
  action: ActionOperation,
  href: string,
  noun: string,
  fc: FieldContext,
): Html {
  const body = action.op.input.body as z.ZodType | undefined;
  return html`<form method="post" action="${href}" class="action">${csrfField(viewer)}${
    body ? formFields(body, {}, {}, fc) : ''
  }<div class="actions start"><button class="secondary small" type="submit">${actionLabel(action.verb, noun)}</button></div></form>`;
}

/** A nested list on a detail page (an event's registrations, a form's submissions). */
export interface SubListView {
  readonly sub: SubList;
  readonly items: readonly Item[];
  readonly more: boolean;
  readonly names: Names;
}

function subListSection(
  area: Area,
  group: ConsoleGroup,
  parentId: string,
  view: SubListView,
  fc: FieldContext,
): Html {
  const schema = itemSchema(view.sub.op);
  const title = labelOf(view.sub.segment.replace(/-/g, '_'));
  const keys = Object.keys(schema?.shape ?? {}).filter((k) => {
    if (view.items.length === 0) return !/(^id$|_ids?$)/.test(k);
    const sample = view.items[0];
    const v = sample[k];
    if (v && typeof v === 'object' && (v as Item).id === parentId) return false;
    return shown(sample, k) && !(k.endsWith('_id') && `${k.slice(0, -3)}` in sample);
  });
  const noun = view.sub.segment.replace(/-/g, ' ').replace(/s$/, '');
  const rows = view.items.map(
    (item) =>
      html`<tr>${keys.map((k) => html`<td data-label="${labelOf(k)}">${cell(schema, item, k, fc, view.names)}</td>`)}${
        view.sub.rowActions.length > 0
          ? html`<td>${view.sub.rowActions
              .filter(() => !(item.status === 'canceled' || item.canceled_at))
              .map((a) =>
                actionForm(
                  area.viewer,
                  { ...a, op: { ...a.op, input: {} } },
                  itemPath(
                    area,
                    group,
                    parentId,
                    `/${view.sub.segment}/${encodeURIComponent(idOf(item))}/${a.verb}`,
                  ),
                  noun,
                  fc,
                ),
              )}</td>`
          : ''
      }</tr>`,
  );
  return html`<section aria-labelledby="sub-${view.sub.segment}"><h2 id="sub-${view.sub.segment}">${title}</h2>
${
  view.items.length === 0
    ? html`<p class="muted">None yet.</p>`
    : html`<table class="stack"><thead><tr>${keys.map((k) => html`<th scope="col">${labelOf(k)}</th>`)}${
        view.sub.rowActions.length > 0 ? html`<th scope="col">Actions</th>` : ''
      }</tr></thead><tbody>${rows}</tbody></table>`
}${view.more ? html`<p class="muted">Showing the first ${view.items.length}.</p>` : ''}</section>`;
}

/** The fields of one item as a description list, in words. */
export function detailList(
  schema: z.ZodObject | undefined,
  item: Item,
  fc: FieldContext,
  names: Names,
): Html {
  const keys = Object.keys(item).filter((k) => shown(item, k));
  return html`<dl class="details">${keys.map((k) => html`<dt>${labelOf(k)}</dt><dd>${cell(schema, item, k, fc, names)}</dd>`)}</dl>`;
}

/** An item's page: every field in words, its edit, delete and other actions, its nested lists. */
export function detailPage(
  area: Area,
  group: ConsoleGroup,
  view: {
    item: Item;
    fc: FieldContext;
    names: Names;
    subLists: readonly SubListView[];
    done?: string;
    /** A section of the group's own after the fields (an enrollment's progress by lecture). */
    extra?: Html;
  },
): Html {
  const id = idOf(view.item);
  const links: Html[] = [];
  const may = (op: { name: string } | undefined) => op !== undefined && mayRun(area, op.name);
  if (may(group.update))
    links.push(html`<a href="${itemPath(area, group, id, '/edit')}">Edit ${group.noun}</a>`);
  if (group.slug === 'courses') {
    links.push(html`<a href="${itemPath(area, group, id, '/curriculum')}">Edit curriculum</a>`);
    links.push(html`<a href="${itemPath(area, group, id, '/students')}">Students and progress</a>`);
  }
  if (may(group.delete))
    links.push(html`<a href="${itemPath(area, group, id, '/delete')}">Delete ${group.noun}</a>`);
  const heading = group.single ? group.name : titleOf(group, view.item);
  return page(
    area,
    group,
    html`${group.single ? '' : html`<p><a href="${groupPath(area, group)}">All ${group.name.toLowerCase()}</a></p>`}
<h1>${heading}</h1>
${doneNotice(group, view.done)}
${links.length > 0 ? html`<div class="row-actions">${links}</div>` : ''}
${group.actions.filter((a) => may(a.op)).map((a) => actionForm(area.viewer, a, itemPath(area, group, id, `/${a.verb}`), group.noun, view.fc))}
${detailList(itemSchema(group.get), view.item, view.fc, view.names)}
${view.extra ?? ''}
${view.subLists.map((s) => subListSection(area, group, id, s, view.fc))}`,
  );
}
