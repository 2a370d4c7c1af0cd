/** The operator area's Audit trail page: who did what at the school, in words, with filters. */

import { html } from 'hono/html';
import type {
  AuditActor,
  AuditActorChoice,
  AuditEvent,
  AuditSubjects,
} from '../../domain/school/audit-trail.ts';
import type { Html } from '../layout.ts';
import { notice } from '../shared/page-kit.ts';
import { timeOf } from '../shared/school-format.ts';
import { type Area, areaNav, areaPath } from './area.ts';
import { kindGroups, tell } from './audit-words.ts';

/** The filters as typed (echoed into the form), each one's error, and the page's own error. */
export interface AuditFilterForm {
  readonly values: { type: string; actor: string; from: string; to: string };
  readonly errors: Partial<Record<'type' | 'actor' | 'from' | 'to' | 'page', string>>;
}

/** The actor filter's value for a choice: `user:<id>`, `client:<id>`, or `system` for Lectern. */
export const actorValue = (a: Pick<AuditActorChoice, 'type' | 'id'>) => `${a.type}:${a.id}`;
export const SYSTEM_ACTOR_VALUE = 'system';

/** What the page shows: one page of entries, the names behind them, and where the pages lead. */
export interface AuditListing {
  readonly events: readonly AuditEvent[];
  readonly subjects: AuditSubjects;
  readonly actors: readonly AuditActorChoice[];
  /** The next (older) page, with the filters kept; null on the last page. */
  readonly olderHref: string | null;
  /** The first (newest) page with the filters kept, when this is a later page. */
  readonly newestHref: string | null;
}

function who(a: AuditActor): Html {
  const through = a.clientId
    ? html`<br><span class="muted">through ${a.clientName ?? 'an app that no longer exists'}</span>`
    : '';
  if (a.type === 'system') return html`Lectern<br><span class="muted">automatically</span>`;
  if (a.type === 'client')
    return html`${a.clientName ?? 'An app that no longer exists'}<br><span class="muted">an app, on its own</span>`;
  if (a.name === null) return html`A person whose account was deleted${through}`;
  return html`${a.name}<br><span class="muted">${a.email}</span>${through}`;
}

function describedBy(form: AuditFilterForm, field: 'type' | 'actor' | 'from' | 'to') {
  return form.errors[field] ? html` aria-describedby="${field}-error" aria-invalid="true"` : '';
}

function fieldError(form: AuditFilterForm, field: 'type' | 'actor' | 'from' | 'to'): Html | '' {
  return form.errors[field] ? html`<p class="field-error" id="${field}-error">${form.errors[field]}</p>` : '';
}

const selected = (yes: boolean) => (yes ? html` selected` : '');

function filters(area: Area, form: AuditFilterForm, actors: readonly AuditActorChoice[]): Html {
  const v = form.values;
  return html`<form method="get" action="${areaPath(area.school.id, '/audit')}" class="filters" aria-label="Filter the audit trail">
<div class="fields"><div><label for="type">What happened</label>
<select id="type" name="type"${describedBy(form, 'type')}><option value="">Every kind of change</option>${kindGroups().map(
    (g) =>
      html`<optgroup label="${g.group}">${g.kinds.map((k) => html`<option value="${k.type}"${selected(k.type === v.type)}>${k.label}</option>`)}</optgroup>`,
  )}</select>
${fieldError(form, 'type')}</div>
<div><label for="actor">Who did it</label>
<select id="actor" name="actor"${describedBy(form, 'actor')}><option value="">Everyone</option>${actors.map(
    (a) =>
      html`<option value="${actorValue(a)}"${selected(actorValue(a) === v.actor)}>${a.email ? `${a.name} (${a.email})` : `${a.name} (app)`}</option>`,
  )}<option value="${SYSTEM_ACTOR_VALUE}"${selected(v.actor === SYSTEM_ACTOR_VALUE)}>Lectern (automatic)</option></select>
${fieldError(form, 'actor')}</div>
<div><label for="from">From</label>
<input id="from" name="from" type="date" value="${v.from}"${describedBy(form, 'from')}>
${fieldError(form, 'from')}</div>
<div><label for="to">To</label>
<input id="to" name="to" type="date" value="${v.to}"${describedBy(form, 'to')}>
${fieldError(form, 'to')}</div></div>
<div class="actions start"><button class="primary" type="submit">Show entries</button>
<a href="${areaPath(area.school.id, '/audit')}">Clear filters</a></div>
</form>`;
}

function entries(area: Area, listing: AuditListing, filtered: boolean): Html {
  if (listing.events.length === 0) {
    return html`<p id="no-events">${filtered ? 'No entries match these filters.' : 'Nothing has happened at this school yet.'}</p>`;
  }
  return html`<div class="table-wrap" role="region" aria-label="Audit trail entries" tabindex="0">
<table id="audit-events" class="stack"><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What happened</th></tr></thead><tbody>
${listing.events.map((e) => {
  const told = tell(area.school, listing.subjects, e);
  return html`<tr><td data-label="When">${timeOf(area.school, e.occurredAt)}</td><td data-label="Who">${who(e.actor)}</td><td data-label="What happened"><span class="sentence">${told.sentence}</span>${
    told.details.length > 0
      ? html`<ul class="details">${told.details.map((d) => html`<li>${d}</li>`)}</ul>`
      : ''
  }${told.more ?? ''}</td></tr>`;
})}</tbody></table></div>`;
}

/** The audit trail: filters, one page of entries (newest first), and the way to older entries. */
export function auditPage(area: Area, form: AuditFilterForm, listing: AuditListing): Html {
  const v = form.values;
  const filtered = Boolean(v.type || v.actor || v.from || v.to);
  const fieldErrors = (['type', 'actor', 'from', 'to'] as const).some((f) => form.errors[f]);
  const pager =
    listing.olderHref || listing.newestHref
      ? html`<nav class="pager" aria-label="Pages of the audit trail">${listing.newestHref ? html`<a href="${listing.newestHref}">Newest entries</a>` : html`<span></span>`}${listing.olderHref ? html`<a href="${listing.olderHref}" rel="next">Older entries</a>` : ''}</nav>`
      : '';
  return html`${areaNav(area, 'audit')}
<h1>${area.school.name} · Audit trail</h1>
<p>Who changed what at your school, newest first. Times are in the school’s time zone (${area.school.timezone}).</p>
${form.errors.page ? notice('error', form.errors.page) : fieldErrors ? notice('error', 'Some filters could not be used: correct the fields marked below.') : ''}
${filters(area, form, listing.actors)}
${
  fieldErrors || form.errors.page
    ? ''
    : html`<h2 id="entries">${filtered ? 'Matching entries' : 'Entries'}</h2>
${entries(area, listing, filtered)}`
}
${pager}`;
}
