/**
 * The generated read pages of a group: its list (filters and paging), one item with its nested
 * lists, and a single resource's details page.
 */

import { ProblemError } from '../../../errors/problem-error.ts';
import type { Html } from '../../layout.ts';
import { sendAreaPage } from '../../shared/page-kit.ts';
import { fromLocalInput } from '../../shared/school-format.ts';
import type { ConsoleContext } from '../console-env.ts';
import type { FieldContext } from './fields.ts';
import { fieldInfo, shapeOf } from './fields-schema.ts';
import {
  fieldContext,
  itemKeys,
  type ListBody,
  namesFor,
  paramsOf,
  readItem,
  refused,
  run,
} from './group-kit.ts';
import { type CurriculumSection, type LectureProgressRow, progressSection } from './progress-views.ts';
import { type ConsoleGroup, type Item, itemSchema, titleOf } from './registry.ts';
import { type Choices, capital, detailPage, filterKeys, idOf, listPage, type SubListView } from './views.ts';

type Handler = (c: ConsoleContext) => Promise<Response>;

const titled = (c: ConsoleContext, what: string) => `${c.var.area.school.name} · ${what}`;

/** A single resource's details page (school details, appearance). */
export function showSingle(group: ConsoleGroup): Handler {
  return async function showSingle(c) {
    const found = await readItem(c, group, '');
    const { names } = await namesFor(c, itemKeys(found.item));
    const body = detailPage(c.var.area, group, {
      item: found.item,
      fc: fieldContext(c.var.area),
      names,
      subLists: [],
      done: c.req.query('done'),
    });
    return sendAreaPage(c, 200, titled(c, group.name), body);
  };
}

/** The list's filters from the query, as the operation takes them; what cannot be used, in words. */
function readFilters(c: ConsoleContext, group: ConsoleGroup, choices: Choices, fc: FieldContext) {
  const query = shapeOf(group.list?.input.query);
  const filters: Record<string, string> = {};
  const apiQuery: Record<string, string> = {};
  const problems: string[] = [];
  for (const key of filterKeys(group, choices)) {
    const value = c.req.query(key)?.trim();
    if (!value) continue;
    filters[key] = value;
    const kind = fieldInfo(key, query[key]).kind.k;
    if (kind !== 'datetime' && kind !== 'date') {
      apiQuery[key] = value;
      continue;
    }
    // A date is midnight in the school's zone; "to" includes the whole day.
    const start = /^\d{4}-\d{2}-\d{2}$/.test(value)
      ? fromLocalInput(`${value}T00:00`, fc.timeZone)
      : undefined;
    if (!start) problems.push(`${capital(key.replace(/_/g, ' '))} must be a date.`);
    else apiQuery[key] = key === 'to' ? new Date(Date.parse(start) + 86_400_000).toISOString() : start;
  }
  const cursor = c.req.query('cursor');
  if (cursor) apiQuery.cursor = cursor;
  return { filters, apiQuery, problems, cursor };
}

/** The group's list, with its filters and paging. */
export function showList(group: ConsoleGroup): Handler {
  const list = group.list;
  if (!list) throw new Error(`${group.slug} has no list`);
  const query = shapeOf(list.input.query);
  return async function showList(c) {
    const fc = fieldContext(c.var.area);
    const { choices, names } = await namesFor(c, [...Object.keys(query), ...(group.columns ?? [])]);
    const { filters, apiQuery, problems, cursor } = readFilters(c, group, choices, fc);
    let items: Item[] = [];
    let next: string | null = null;
    if (problems.length === 0) {
      try {
        const r = await run(c, list.name, { query: apiQuery });
        ({ data: items, next_cursor: next } = r.body as ListBody);
      } catch (err) {
        if (!(err instanceof ProblemError) || err.status >= 500) throw err;
        if (err.status === 403) throw refused(c, group, err, 'Not allowed');
        const said = err.errors?.map((e) => `${e.field.replace(/^query\./, '')}: ${e.message}`);
        problems.push(...(said ?? [err.detail ?? err.title]));
      }
    }
    const body = listPage(c.var.area, group, {
      items,
      next,
      filters,
      paged: Boolean(cursor),
      choices,
      names,
      fc,
      done: c.req.query('done'),
      error: problems.length > 0 ? `These filters could not be used: ${problems.join(' ')}` : undefined,
    });
    return sendAreaPage(c, problems.length > 0 ? 422 : 200, titled(c, group.name), body);
  };
}

/**
 * An enrollment's progress lecture by lecture (`students.get_progress`), each lecture named from
 * its course's curriculum, in the curriculum's order.
 */
async function lectureProgress(c: ConsoleContext, enrollment: Item): Promise<Html> {
  const [progress, curriculum] = await Promise.all([
    run(c, 'students.get_progress', { params: { enrollment_id: idOf(enrollment) } }),
    run(c, 'curriculum.get', { params: { course_id: String(enrollment.course_id) } }),
  ]);
  const rows = (progress.body as { lectures: LectureProgressRow[] }).lectures;
  const sections = (curriculum.body as { sections: CurriculumSection[] }).sections;
  return progressSection(sections, new Map(rows.map((r) => [r.lecture_id, r])), fieldContext(c.var.area));
}

/** One item, with its nested lists (an event's registrations) and an enrollment's progress. */
export function showItem(group: ConsoleGroup): Handler {
  return async function showItem(c) {
    const id = c.req.param('id') ?? '';
    const found = await readItem(c, group, id);
    const subLists: SubListView[] = [];
    const keys = new Set(itemKeys(found.item));
    for (const sub of group.subLists) {
      const r = await run(c, sub.op.name, { params: paramsOf(sub.op, id), query: { limit: '50' } });
      const body = r.body as ListBody;
      for (const k of Object.keys(itemSchema(sub.op)?.shape ?? {})) keys.add(k);
      subLists.push({ sub, items: body.data, more: body.next_cursor !== null, names: {} });
    }
    const { names } = await namesFor(c, keys);
    const body = detailPage(c.var.area, group, {
      item: found.item,
      fc: fieldContext(c.var.area),
      names,
      subLists: subLists.map((s) => ({ ...s, names })),
      done: c.req.query('done'),
      extra: group.slug === 'students' ? await lectureProgress(c, found.item) : undefined,
    });
    return sendAreaPage(c, 200, titled(c, titleOf(group, found.item)), body);
  };
}
