/**
 * `/admin/<schoolId>/<group>…`: the console's generated pages, one set per group of the
 * registry (registry.ts). Every read and change runs the catalogue operation through
 * runForConsole, so a page validates, refuses and records exactly as the REST API and the MCP
 * tools do. Each group gets explicit paths (never a `/:group` wildcard, which would shadow the
 * hand-made pages mounted beside these): its list, `new`, an item, `edit`, `delete` and one
 * path per action. Every change is a CSRF-checked POST answered by a 303.
 */
import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import type { z } from 'zod';
import type { AdminOperation } from '../../../admin/define-operation.ts';
import { ProblemError } from '../../../errors/problem-error.ts';
import type { AppContext, AppEnv } from '../../../http/context.ts';
import type { Html } from '../../layout.ts';
import { messagePage, readForm, sendAreaPage } from '../../shared/page-kit.ts';
import { fromLocalInput } from '../../shared/school-format.ts';
import { type Area, operatorPage, staffPage } from '../area.ts';
import { runForConsole } from '../console-kit.ts';
import { type FieldContext, fieldErrorsOf, readFields } from './fields.ts';
import { fieldInfo, shapeOf } from './fields-schema.ts';
import {
  CHOICES_LIMIT,
  CONSOLE_GROUPS,
  type ConsoleGroup,
  type Item,
  itemSchema,
  sourcesOf,
  titleOf,
} from './registry.ts';
import {
  type Choices,
  type CurriculumSection,
  capital,
  deletePage,
  detailPage,
  editPage,
  filterKeys,
  groupPath,
  idOf,
  itemPath,
  type LectureProgressRow,
  listPage,
  type Names,
  newPage,
  progressSection,
  type SubListView,
} from './views.ts';

type Handler = (c: Context<AppEnv>, area: Area) => Promise<Response>;

/** The school's money, language and time zone, in which every field is shown and read. */
function fieldContext(area: Area): FieldContext {
  return { currency: area.school.currency, locale: area.school.locale, timeZone: area.school.timezone };
}

const paramNames = (op: AdminOperation) => [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** An operation's path parameters from the page's ids, in order. */
function paramsOf(op: AdminOperation, ...ids: string[]): Record<string, string> {
  return Object.fromEntries(paramNames(op).map((name, i) => [name, ids[i] ?? '']));
}

/** The page of a list operation as `{ data, next_cursor }`. */
interface ListBody {
  readonly data: Item[];
  readonly next_cursor: string | null;
}

/** The pages of one group. */
function groupPages(ctx: AppContext, group: ConsoleGroup): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const base = `/admin/:school/${group.slug}`;
  const page = (handler: Handler) => operatorPage(ctx, handler);
  // The pages lecturers open too (their courses' list and pages): every operation on them runs
  // through runForConsole's teaching rule, so a lecturer sees and does only what it allows.
  const staff = (handler: Handler) => (group.slug === 'courses' ? staffPage(ctx, handler) : page(handler));
  const send = (c: Context<AppEnv>, status: number, title: string, body: Html) =>
    sendAreaPage(c, status, title, body);
  const titled = (area: Area, what: string) => `${area.school.name} · ${what}`;

  const notFound = (c: Context<AppEnv>, area: Area) =>
    messagePage(
      c,
      404,
      `No such ${group.noun} at this school`,
      `There is no such ${group.noun} at ${area.school.name}. It may have been deleted, or the link may be wrong.`,
      { href: groupPath(area, group), label: `Back to ${group.name.toLowerCase()}` },
    );
  const refused = (c: Context<AppEnv>, area: Area, err: ProblemError, title: string) =>
    messagePage(c, err.status, title, err.detail ?? err.title, {
      href: groupPath(area, group),
      label: `Back to ${group.name.toLowerCase()}`,
    });

  // An unknown id, another school's id and an id the schema refuses are the same 404 page.
  async function readItem(area: Area, id: string): Promise<{ item: Item; etag: string } | undefined> {
    if (!group.get) return undefined;
    try {
      const r = await runForConsole(ctx, area, group.get.name, { params: paramsOf(group.get, id) });
      return { item: r.body as Item, etag: r.etag ?? '' };
    } catch (err) {
      if (err instanceof ProblemError && (err.status === 404 || err.status === 422)) return undefined;
      throw err;
    }
  }

  // The names behind the id fields among `keys`: the first CHOICES_LIMIT items of each list.
  async function namesFor(area: Area, keys: Iterable<string>): Promise<{ choices: Choices; names: Names }> {
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
          try {
            const r = await runForConsole(ctx, area, source.list, {
              query: { limit: String(CHOICES_LIMIT) },
            });
            items = (r.body as ListBody).data;
          } catch (err) {
            if (!(err instanceof ProblemError)) throw err;
            items = [];
          }
          loaded.set(source.list, items);
        }
        options.push(...items.map((i) => ({ value: String(i[source.value]), label: source.label(i) })));
      }
      choices[key] = options;
      names[key] = new Map(options.map((o) => [o.value, o.label]));
    }
    return { choices, names };
  }

  const bodyKeys = (op: AdminOperation | undefined) => Object.keys(shapeOf(op?.input.body as z.ZodType));
  /** A body's field names and, for lists and objects of objects, their fields' paths (`applies_to.id`). */
  const fieldPaths = (op: AdminOperation | undefined) => {
    const out: string[] = [];
    for (const [key, rule] of Object.entries(shapeOf(op?.input.body as z.ZodType))) {
      out.push(key);
      const kind = fieldInfo(key, rule).kind;
      const inner = kind.k === 'list' ? kind.item : kind;
      if (inner.k !== 'object') continue;
      for (const variant of inner.variants)
        for (const sub of Object.keys(variant.shape)) out.push(`${key}.${sub}`);
    }
    return out;
  };
  /** The fields of an item, of the objects in its lists, and `.id` paths, for the names on its page. */
  const itemKeys = (item: Item) =>
    Object.entries(item).flatMap(([k, v]) => [
      k,
      `${k}.id`,
      ...(Array.isArray(v) ? v.flatMap((x) => (x && typeof x === 'object' ? Object.keys(x) : [])) : []),
    ]);
  const formOptions = (choices: Choices) => ({ omit: group.omit, choices });

  /** An item as the values of its edit form: `lecturers[].id` fills `lecturer_ids`, `course.id` `course_id`. */
  function formValuesOf(item: Item): Item {
    const out: Item = {};
    for (const key of bodyKeys(group.update)) {
      if (key in item) out[key] = item[key];
      else if (key.endsWith('_ids') && Array.isArray(item[`${key.slice(0, -4)}s`])) {
        out[key] = (item[`${key.slice(0, -4)}s`] as Item[]).map((x) => x.id);
      } else if (
        key.endsWith('_id') &&
        item[key.slice(0, -3)] &&
        typeof item[key.slice(0, -3)] === 'object'
      ) {
        out[key] = (item[key.slice(0, -3)] as Item).id;
      }
    }
    return out;
  }

  /** A refused form's errors by field; a refusal without fields is said above the form. */
  function formErrors(err: ProblemError): Record<string, string> {
    if (err.code === 'idempotency_key_reused') {
      return {
        '': `This form was already used to create a ${group.noun}. Open a new form to create another.`,
      };
    }
    const errors = fieldErrorsOf(err);
    return Object.keys(errors).length > 0 ? errors : { '': err.detail ?? err.title };
  }

  // ---- A single resource (school details, appearance): its page and its edit form.
  if (group.single) {
    app.get(
      base,
      page(async (c, area) => {
        const found = await readItem(area, '');
        if (!found) return notFound(c, area);
        const { names } = await namesFor(area, itemKeys(found.item));
        const body = detailPage(area, group, {
          item: found.item,
          fc: fieldContext(area),
          names,
          subLists: [],
          done: c.req.query('done'),
        });
        return send(c, 200, titled(area, group.name), body);
      }),
    );
  }

  // ---- The list, with its filters and paging.
  if (group.list && !group.single) {
    const list = group.list;
    const query = shapeOf(list.input.query);
    app.get(
      base,
      staff(async (c, area) => {
        const fc = fieldContext(area);
        const { choices, names } = await namesFor(area, [...Object.keys(query), ...(group.columns ?? [])]);
        const filters: Record<string, string> = {};
        const apiQuery: Record<string, string> = {};
        const problems: string[] = [];
        for (const key of filterKeys(group, choices)) {
          const value = c.req.query(key)?.trim();
          if (!value) continue;
          filters[key] = value;
          const kind = fieldInfo(key, query[key]).kind.k;
          if (kind === 'datetime' || kind === 'date') {
            // A date is midnight in the school's zone; "to" includes the whole day.
            const start = /^\d{4}-\d{2}-\d{2}$/.test(value)
              ? fromLocalInput(`${value}T00:00`, fc.timeZone)
              : undefined;
            if (!start) {
              problems.push(`${capital(key.replace(/_/g, ' '))} must be a date.`);
              continue;
            }
            apiQuery[key] = key === 'to' ? new Date(Date.parse(start) + 86_400_000).toISOString() : start;
          } else apiQuery[key] = value;
        }
        const cursor = c.req.query('cursor');
        if (cursor) apiQuery.cursor = cursor;
        let items: Item[] = [];
        let next: string | null = null;
        if (problems.length === 0) {
          try {
            const r = await runForConsole(ctx, area, list.name, { query: apiQuery });
            ({ data: items, next_cursor: next } = r.body as ListBody);
          } catch (err) {
            if (!(err instanceof ProblemError) || err.status >= 500) throw err;
            if (err.status === 403) return refused(c, area, err, 'Not allowed');
            problems.push(
              ...(err.errors?.map((e) => `${e.field.replace(/^query\./, '')}: ${e.message}`) ?? [
                err.detail ?? err.title,
              ]),
            );
          }
        }
        const body = listPage(area, group, {
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
        return send(c, problems.length > 0 ? 422 : 200, titled(area, group.name), body);
      }),
    );
  }

  // ---- New and create (idempotent: the form's one-time key).
  if (group.create) {
    const create = group.create;
    const schema = create.input.body as z.ZodType;
    const title = `New ${group.noun}`;
    app.get(
      `${base}/new`,
      page(async (c, area) => {
        const { choices } = await namesFor(area, fieldPaths(create));
        const body = newPage(area, group, {
          key: randomUUID(),
          values: group.defaults ?? {},
          errors: {},
          fc: fieldContext(area),
          choices,
        });
        return send(c, 200, titled(area, title), body);
      }),
    );
    app.post(
      base,
      page(async (c, area) => {
        const form = await readForm(ctx, c, area.viewer);
        if (form instanceof Response) return form;
        const fc = fieldContext(area);
        const { choices } = await namesFor(area, fieldPaths(create));
        const key = form.get('_key') || randomUUID();
        const again = (values: Item, errors: Record<string, string>) =>
          send(c, 422, titled(area, title), newPage(area, group, { key, values, errors, fc, choices }));
        const read = readFields(schema, form, fc, formOptions(choices));
        if (!read.ok) return again(read.values, read.errors);
        try {
          const r = await runForConsole(ctx, area, create.name, { body: read.body }, { idempotencyKey: key });
          return c.redirect(itemPath(area, group, idOf(r.body as Item), '?done=created'), 303);
        } catch (err) {
          if (!(err instanceof ProblemError) || err.status >= 500) throw err;
          if (err.status === 403) return refused(c, area, err, 'Not allowed');
          return again(read.body, formErrors(err));
        }
      }),
    );
  }

  /**
   * An enrollment's progress lecture by lecture (`students.get_progress`), each lecture named from
   * its course's curriculum, in the curriculum's order.
   */
  async function lectureProgress(area: Area, enrollment: Item): Promise<Html> {
    const [progress, curriculum] = await Promise.all([
      runForConsole(ctx, area, 'students.get_progress', { params: { enrollment_id: idOf(enrollment) } }),
      runForConsole(ctx, area, 'curriculum.get', { params: { course_id: String(enrollment.course_id) } }),
    ]);
    const rows = (progress.body as { lectures: LectureProgressRow[] }).lectures;
    const sections = (curriculum.body as { sections: CurriculumSection[] }).sections;
    return progressSection(sections, new Map(rows.map((r) => [r.lecture_id, r])), fieldContext(area));
  }

  // ---- One item.
  if (group.get && !group.single) {
    app.get(
      `${base}/:id`,
      staff(async (c, area) => {
        const id = c.req.param('id') ?? '';
        const found = await readItem(area, id);
        if (!found) return notFound(c, area);
        const subLists: SubListView[] = [];
        const keys = new Set(itemKeys(found.item));
        for (const sub of group.subLists) {
          const r = await runForConsole(ctx, area, sub.op.name, {
            params: paramsOf(sub.op, id),
            query: { limit: '50' },
          });
          const body = r.body as ListBody;
          for (const k of Object.keys(itemSchema(sub.op)?.shape ?? {})) keys.add(k);
          subLists.push({ sub, items: body.data, more: body.next_cursor !== null, names: {} });
        }
        const { names } = await namesFor(area, keys);
        const body = detailPage(area, group, {
          item: found.item,
          fc: fieldContext(area),
          names,
          subLists: subLists.map((s) => ({ ...s, names })),
          done: c.req.query('done'),
          extra: group.slug === 'students' ? await lectureProgress(area, found.item) : undefined,
        });
        return send(c, 200, titled(area, titleOf(group, found.item)), body);
      }),
    );
  }

  // ---- Edit and save, guarded by the ETag the form was opened with.
  if (group.update) {
    const update = group.update;
    const schema = update.input.body as z.ZodType;
    const editPath = group.single ? `${base}/edit` : `${base}/:id/edit`;
    app.get(
      editPath,
      page(async (c, area) => {
        const id = c.req.param('id') ?? '';
        const found = await readItem(area, id);
        if (!found) return notFound(c, area);
        const { choices, names } = await namesFor(area, [...fieldPaths(update), ...itemKeys(found.item)]);
        const body = editPage(area, group, {
          id,
          title: titleOf(group, found.item),
          etag: found.etag,
          values: formValuesOf(found.item),
          errors: {},
          fc: fieldContext(area),
          choices,
          names,
        });
        return send(c, 200, titled(area, `Edit ${group.noun}`), body);
      }),
    );
    app.post(
      editPath,
      page(async (c, area) => {
        const id = c.req.param('id') ?? '';
        const form = await readForm(ctx, c, area.viewer);
        if (form instanceof Response) return form;
        const found = await readItem(area, id);
        if (!found) return notFound(c, area);
        const fc = fieldContext(area);
        const { choices, names } = await namesFor(area, [...fieldPaths(update), ...itemKeys(found.item)]);
        const etag = form.get('_etag') ?? '';
        const again = (
          status: number,
          values: Item,
          errors: Record<string, string>,
          theirs?: { item: Item; etag: string },
        ) =>
          send(
            c,
            status,
            titled(area, `Edit ${group.noun}`),
            editPage(area, group, {
              id,
              title: titleOf(group, found.item),
              etag: theirs?.etag ?? etag,
              values,
              errors,
              fc,
              choices,
              names,
              theirs: theirs?.item,
            }),
          );
        const read = readFields(schema, form, fc, formOptions(choices));
        if (!read.ok) return again(422, read.values, read.errors);
        try {
          await runForConsole(
            ctx,
            area,
            update.name,
            { params: paramsOf(update, id), body: read.body },
            { ifMatch: etag || undefined },
          );
          return c.redirect(itemPath(area, group, id, '?done=saved'), 303);
        } catch (err) {
          if (!(err instanceof ProblemError) || err.status >= 500) throw err;
          if (err.status === 404) return notFound(c, area);
          if (err.status === 403) return refused(c, area, err, 'Not allowed');
          // Someone saved in between: their version beside ours, with their ETag, so a second
          // Save replaces it on purpose.
          if (err.status === 412) return again(409, read.body, {}, found);
          return again(422, read.body, formErrors(err));
        }
      }),
    );
  }

  // ---- Delete, after a confirmation page.
  if (group.delete) {
    const del = group.delete;
    app.get(
      `${base}/:id/delete`,
      page(async (c, area) => {
        const found = await readItem(area, c.req.param('id') ?? '');
        if (!found) return notFound(c, area);
        return send(c, 200, titled(area, `Delete ${group.noun}`), deletePage(area, group, found.item));
      }),
    );
    app.post(
      `${base}/:id/delete`,
      page(async (c, area) => {
        const id = c.req.param('id') ?? '';
        const form = await readForm(ctx, c, area.viewer);
        if (form instanceof Response) return form;
        // Without the confirmation page's field nothing is deleted: back to that page.
        if (form.get('confirm') !== 'yes') return c.redirect(itemPath(area, group, id, '/delete'), 303);
        try {
          await runForConsole(ctx, area, del.name, { params: paramsOf(del, id) });
        } catch (err) {
          if (!(err instanceof ProblemError) || err.status >= 500) throw err;
          if (err.status === 404 || err.status === 422) return notFound(c, area);
          return refused(c, area, err, `Could not delete this ${group.noun}`);
        }
        return c.redirect(groupPath(area, group, '?done=deleted'), 303);
      }),
    );
  }

  // ---- Actions on an item (cancel, publish) and on a row of a nested list.
  const act = (
    op: AdminOperation,
    ids: (c: Context<AppEnv>) => string[],
    back: (c: Context<AppEnv>, area: Area) => string,
    verb: string,
  ) =>
    page(async (c, area) => {
      const form = await readForm(ctx, c, area.viewer);
      if (form instanceof Response) return form;
      let body: unknown;
      if (op.input.body) {
        const read = readFields(op.input.body as z.ZodType, form, fieldContext(area));
        if (!read.ok) {
          return messagePage(c, 422, 'Could not do that', Object.values(read.errors).join(' '), {
            href: back(c, area),
            label: 'Go back',
          });
        }
        body = read.body;
      }
      try {
        await runForConsole(ctx, area, op.name, { params: paramsOf(op, ...ids(c)), body });
      } catch (err) {
        if (!(err instanceof ProblemError) || err.status >= 500) throw err;
        if (err.status === 404) return notFound(c, area);
        return messagePage(c, err.status, 'Could not do that', err.detail ?? err.title, {
          href: back(c, area),
          label: 'Go back',
        });
      }
      return c.redirect(`${back(c, area)}?done=${verb}`, 303);
    });
  for (const action of group.actions) {
    app.post(
      `${base}/:id/${action.verb}`,
      act(
        action.op,
        (c) => [c.req.param('id') ?? ''],
        (c, area) => itemPath(area, group, c.req.param('id') ?? ''),
        action.verb,
      ),
    );
  }
  for (const sub of group.subLists) {
    for (const action of sub.rowActions) {
      app.post(
        `${base}/:id/${sub.segment}/:sub/${action.verb}`,
        act(
          action.op,
          (c) => [c.req.param('id') ?? '', c.req.param('sub') ?? ''],
          (c, area) => itemPath(area, group, c.req.param('id') ?? ''),
          action.verb,
        ),
      );
    }
  }
  return app;
}

/** Every generated group's pages. Mounted by one line in web/pages.ts. */
export function createConsolePagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const group of CONSOLE_GROUPS) app.route('/', groupPages(ctx, group));
  return app;
}
