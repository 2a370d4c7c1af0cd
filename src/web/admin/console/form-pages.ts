/**
 * The generated change pages of a group: new and create (idempotent under the form's one-time
 * key), edit and save (guarded by the ETag the form was opened with), delete after a
 * confirmation page, and the actions on an item or a row of its nested lists. Every change runs
 * the catalogue operation through runForConsole and is answered by a 303.
 */
import { randomUUID } from 'node:crypto';
import type { AdminOperation } from '../../../admin/define-operation.ts';
import { ProblemError } from '../../../errors/problem-error.ts';
import { sendAreaPage } from '../../shared/page-kit.ts';
import { PageRefusal } from '../../shared/refusal.ts';
import { type ConsoleContext, postedForm } from '../console-env.ts';
import { readFields } from './fields.ts';
import { deletePage, editPage, newPage } from './form-views.ts';
import {
  bodySchema,
  fieldContext,
  fieldPaths,
  formErrors,
  formValuesOf,
  itemKeys,
  namesFor,
  notFound,
  paramsOf,
  readItem,
  refused,
  run,
} from './group-kit.ts';
import { type ConsoleGroup, type Item, titleOf } from './registry.ts';
import { groupPath, idOf, itemPath } from './views.ts';

type Handler = (c: ConsoleContext) => Promise<Response>;

const titled = (c: ConsoleContext, what: string) => `${c.var.area.school.name} · ${what}`;

/** The group's operation `op`, which its routes exist for. */
function required(group: ConsoleGroup, op: AdminOperation | undefined): AdminOperation {
  if (!op) throw new Error(`${group.slug} lacks the operation of this page`);
  return op;
}

/** The new item form. */
export function newForm(group: ConsoleGroup): Handler {
  const create = required(group, group.create);
  return async function newForm(c) {
    const { choices } = await namesFor(c, fieldPaths(create));
    const body = newPage(c.var.area, group, {
      key: randomUUID(),
      values: group.defaults ?? {},
      errors: {},
      fc: fieldContext(c.var.area),
      choices,
    });
    return sendAreaPage(c, 200, titled(c, `New ${group.noun}`), body);
  };
}

/** Creates an item under the form's one-time key; a refusal is the form again with its errors. */
export function createItem(group: ConsoleGroup): Handler {
  const create = required(group, group.create);
  const schema = bodySchema(create);
  return async function createItem(c) {
    const form = postedForm(c);
    const fc = fieldContext(c.var.area);
    const { choices } = await namesFor(c, fieldPaths(create));
    const key = form.get('_key') || randomUUID();
    const again = (values: Item, errors: Record<string, string>) =>
      sendAreaPage(
        c,
        422,
        titled(c, `New ${group.noun}`),
        newPage(c.var.area, group, { key, values, errors, fc, choices }),
      );
    const read = readFields(schema, form, fc, { omit: group.omit });
    if (!read.ok) return again(read.values, read.errors);
    try {
      const r = await run(c, create.name, { body: read.body }, { idempotencyKey: key });
      return c.redirect(itemPath(c.var.area, group, idOf(r.body as Item), '?done=created'), 303);
    } catch (err) {
      if (!(err instanceof ProblemError) || err.status >= 500) throw err;
      if (err.status === 403) throw refused(c, group, err, 'Not allowed');
      return again(read.body, formErrors(group, err, { schema, fc, values: read.body }));
    }
  };
}

/** The edit form's page: the form with `values` and `errors` (and, after a lost race, theirs). */
async function editForm(
  c: ConsoleContext,
  group: ConsoleGroup,
  found: { item: Item; etag: string },
  status: number,
  form: { values: Item; errors: Record<string, string>; etag: string; theirs?: Item },
): Promise<Response> {
  const update = required(group, group.update);
  const { choices, names } = await namesFor(c, [...fieldPaths(update), ...itemKeys(found.item)]);
  const body = editPage(c.var.area, group, {
    id: c.req.param('id') ?? '',
    title: titleOf(group, found.item),
    ...form,
    fc: fieldContext(c.var.area),
    choices,
    names,
  });
  return sendAreaPage(c, status, titled(c, `Edit ${group.noun}`), body);
}

/** The edit form, opened with the item's ETag. */
export function showEdit(group: ConsoleGroup): Handler {
  return async function showEdit(c) {
    const found = await readItem(c, group, c.req.param('id') ?? '');
    return editForm(c, group, found, 200, {
      values: formValuesOf(group, found.item),
      errors: {},
      etag: found.etag,
    });
  };
}

/**
 * Saves an edit over the version the form was opened with: a save over someone else's is the
 * form again (409) with their version beside ours and their ETag, so a second Save replaces it
 * on purpose.
 */
export function saveEdit(group: ConsoleGroup): Handler {
  const update = required(group, group.update);
  const schema = bodySchema(update);
  return async function saveEdit(c) {
    const id = c.req.param('id') ?? '';
    const form = postedForm(c);
    const found = await readItem(c, group, id);
    const fc = fieldContext(c.var.area);
    const etag = form.get('_etag') ?? '';
    const read = readFields(schema, form, fc, { omit: group.omit });
    if (!read.ok) return editForm(c, group, found, 422, { values: read.values, errors: read.errors, etag });
    try {
      const raw = { params: paramsOf(update, id), body: read.body };
      await run(c, update.name, raw, { ifMatch: etag || undefined });
      return c.redirect(itemPath(c.var.area, group, id, '?done=saved'), 303);
    } catch (err) {
      if (!(err instanceof ProblemError) || err.status >= 500) throw err;
      if (err.status === 404) throw notFound(c, group);
      if (err.status === 403) throw refused(c, group, err, 'Not allowed');
      if (err.status === 412) {
        return editForm(c, group, found, 409, {
          values: read.body,
          errors: {},
          etag: found.etag,
          theirs: found.item,
        });
      }
      return editForm(c, group, found, 422, {
        values: read.body,
        errors: formErrors(group, err, { schema, fc, values: read.body }),
        etag,
      });
    }
  };
}

/** The page that asks before an item is deleted. */
export function askDelete(group: ConsoleGroup): Handler {
  return async function askDelete(c) {
    const found = await readItem(c, group, c.req.param('id') ?? '');
    return sendAreaPage(c, 200, titled(c, `Delete ${group.noun}`), deletePage(c.var.area, group, found.item));
  };
}

/** Deletes an item; without the confirmation page's field nothing is deleted (back to that page). */
export function deleteItem(group: ConsoleGroup): Handler {
  const del = required(group, group.delete);
  return async function deleteItem(c) {
    const id = c.req.param('id') ?? '';
    if (postedForm(c).get('confirm') !== 'yes')
      return c.redirect(itemPath(c.var.area, group, id, '/delete'), 303);
    try {
      await run(c, del.name, { params: paramsOf(del, id) });
    } catch (err) {
      if (!(err instanceof ProblemError) || err.status >= 500) throw err;
      if (err.status === 404 || err.status === 422) throw notFound(c, group);
      throw refused(c, group, err, `Could not delete this ${group.noun}`);
    }
    return c.redirect(groupPath(c.var.area, group, '?done=deleted'), 303);
  };
}

/**
 * An action on an item (cancel, publish) or on a row of a nested list (`sub`): the operation,
 * then back to the item with the action's notice.
 */
export function act(group: ConsoleGroup, op: AdminOperation, verb: string): Handler {
  return async function act(c) {
    const ids = [c.req.param('id') ?? '', ...(c.req.param('sub') ? [c.req.param('sub') ?? ''] : [])];
    const back = itemPath(c.var.area, group, ids[0]);
    const links = [{ href: back, label: 'Go back' }];
    let body: unknown;
    if (op.input.body) {
      const read = readFields(bodySchema(op), postedForm(c), fieldContext(c.var.area));
      if (!read.ok)
        throw new PageRefusal(422, 'Could not do that', Object.values(read.errors).join(' '), { links });
      body = read.body;
    }
    try {
      await run(c, op.name, { params: paramsOf(op, ...ids), body });
    } catch (err) {
      if (!(err instanceof ProblemError) || err.status >= 500) throw err;
      if (err.status === 404) throw notFound(c, group);
      throw new PageRefusal(err.status, 'Could not do that', err.detail ?? err.title, { links });
    }
    return c.redirect(`${back}?done=${verb}`, 303);
  };
}
