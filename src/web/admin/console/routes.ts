/**
 * `/admin/<schoolId>/<group>…`: the console's generated pages, one set per group of the
 * registry (registry.ts). Every read and change runs the catalogue operation through
 * runForConsole, so a page validates, refuses and records exactly as the REST API and the MCP
 * tools do. Each group gets explicit paths (never a `/:group` wildcard, which would shadow the
 * hand-made pages mounted beside these): its list, `new`, an item, `edit`, `delete` and one
 * path per action. Which pages a group has follows from the kinds of its operations.
 */
import { Hono } from 'hono';
import { type ConsoleEnv, operators, staff } from '../console-env.ts';
import { act, askDelete, createItem, deleteItem, newForm, saveEdit, showEdit } from './form-pages.ts';
import { showItem, showList, showSingle } from './list-pages.ts';
import { CONSOLE_GROUPS, type ConsoleGroup } from './registry.ts';

/** The pages of one group. */
function groupRoutes(group: ConsoleGroup): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const base = `/:school/${group.slug}`;
  // The pages lecturers open too (their courses' list and pages): every operation on them runs
  // through runForConsole's teaching rule, so a lecturer sees and does only what it allows.
  const readers = group.slug === 'courses' ? staff : operators;
  if (group.single) app.get(base, operators, showSingle(group));
  else if (group.list) app.get(base, readers, showList(group));
  if (group.create) {
    app.get(`${base}/new`, operators, newForm(group));
    app.post(base, operators, createItem(group));
  }
  if (group.get && !group.single) app.get(`${base}/:id`, readers, showItem(group));
  if (group.update) {
    const editPath = group.single ? `${base}/edit` : `${base}/:id/edit`;
    app.get(editPath, operators, showEdit(group));
    app.post(editPath, operators, saveEdit(group));
  }
  if (group.delete) {
    app.get(`${base}/:id/delete`, operators, askDelete(group));
    app.post(`${base}/:id/delete`, operators, deleteItem(group));
  }
  for (const action of group.actions) {
    app.post(`${base}/:id/${action.verb}`, operators, act(group, action.op, action.verb));
  }
  for (const sub of group.subLists) {
    for (const action of sub.rowActions) {
      app.post(
        `${base}/:id/${sub.segment}/:sub/${action.verb}`,
        operators,
        act(group, action.op, action.verb),
      );
    }
  }
  return app;
}

/** Every generated group's pages. */
export function generatedRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  for (const group of CONSOLE_GROUPS) app.route('/', groupRoutes(group));
  return app;
}
