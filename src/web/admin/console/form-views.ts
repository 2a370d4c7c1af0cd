/** The generated forms of a group: new, edit (with another person's version after a lost race) and delete. */
import { html } from 'hono/html';
import type { z } from 'zod';
import type { Html } from '../../layout.ts';
import { confirmForm, csrfField, notice } from '../../shared/page-kit.ts';
import type { Area } from '../area.ts';
import { type FieldContext, formFields } from './fields.ts';
import { type ConsoleGroup, type Item, itemSchema, titleOf } from './registry.ts';
import { type Choices, detailList, groupPath, idOf, itemPath, type Names, page } from './views.ts';

/** The create form, with its one-time key so a second submit makes nothing more. */
export function newPage(
  area: Area,
  group: ConsoleGroup,
  view: { key: string; values: Item; errors: Record<string, string>; fc: FieldContext; choices: Choices },
): Html {
  const schema = group.create?.input.body as z.ZodType;
  return page(
    area,
    group,
    html`<p><a href="${groupPath(area, group)}">All ${group.name.toLowerCase()}</a></p>
<h1>New ${group.noun}</h1>
${view.errors[''] ? notice('error', view.errors['']) : ''}
<form method="post" action="${groupPath(area, group)}" novalidate>${csrfField(area.viewer)}
<input type="hidden" name="_key" value="${view.key}">
${formFields(schema, view.values, view.errors, view.fc, { omit: group.omit, choices: view.choices })}
<div class="actions start"><button class="primary" type="submit">Create ${group.noun}</button>
<a href="${groupPath(area, group)}">Cancel</a></div>
</form>`,
  );
}

/** The edit form; after a lost race it also shows the version someone else saved. */
export function editPage(
  area: Area,
  group: ConsoleGroup,
  view: {
    id: string;
    title: string;
    etag: string;
    values: Item;
    errors: Record<string, string>;
    fc: FieldContext;
    choices: Choices;
    names: Names;
    theirs?: Item;
  },
): Html {
  const schema = group.update?.input.body as z.ZodType;
  const back = itemPath(area, group, view.id);
  const conflict = view.theirs
    ? html`${notice(
        'warning',
        `Someone changed this ${group.noun} since you opened it. Their version is shown below; your changes are still in the form. Save again to replace their version with yours.`,
      )}<section aria-labelledby="theirs"><h2 id="theirs">Their version</h2>${detailList(
        itemSchema(group.get),
        view.theirs,
        view.fc,
        view.names,
      )}</section><h2>Your version</h2>`
    : '';
  return page(
    area,
    group,
    html`<p><a href="${back}">Back to ${group.single ? group.name.toLowerCase() : view.title}</a></p>
<h1>Edit ${group.noun}</h1>
${view.errors[''] ? notice('error', view.errors['']) : ''}
${conflict}
<form method="post" action="${itemPath(area, group, view.id, '/edit')}" novalidate>${csrfField(area.viewer)}
<input type="hidden" name="_etag" value="${view.etag}">
${formFields(schema, view.values, view.errors, view.fc, { omit: group.omit, choices: view.choices })}
<div class="actions start"><button class="primary" type="submit">Save</button>
<a href="${back}">Cancel</a></div>
</form>`,
  );
}

/** The page that asks before deleting. */
export function deletePage(area: Area, group: ConsoleGroup, item: Item): Html {
  const id = idOf(item);
  return page(
    area,
    group,
    html`<h1>Delete ${group.noun}?</h1>
<p>Delete “${titleOf(group, item)}”? This cannot be undone.</p>
${confirmForm(
  area.viewer,
  itemPath(area, group, id, '/delete'),
  `Delete ${group.noun}`,
  itemPath(area, group, id),
  {
    confirm: 'yes',
  },
)}`,
  );
}
