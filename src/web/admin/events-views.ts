/** The operator area's Webhooks pages. */

import { html } from 'hono/html';
import type { WebhookAttempt } from '../../webhooks/delivery-log.ts';
import {
  MAX_DESCRIPTION_LENGTH,
  MAX_EVENT_PATTERNS,
  type WebhookEndpoint,
} from '../../webhooks/endpoints.ts';
import type { Html } from '../layout.ts';
import { confirmForm, csrfField, notice, when } from '../shared/page-kit.ts';
import { type Area, areaNav, areaPath } from './area.ts';

/** Messages shown after a redirect, by fixed code (nothing from the URL is echoed). */
const DONE: Record<string, string> = {
  enabled: 'The endpoint is enabled; events waiting for it are being delivered.',
  disabled: 'The endpoint is disabled; new events are not sent to it.',
  deleted: 'The endpoint was deleted.',
  test: 'A test event was queued for this endpoint.',
  replayed: 'The events were queued again for this endpoint.',
};

const doneNotice = (code: string | undefined) =>
  code && Object.hasOwn(DONE, code) ? notice('success', DONE[code]) : '';

export interface EndpointFormValues {
  url: string;
  eventTypes: string;
  description: string;
}

/** Each form field's error (the endpoint rule's wording), and `form` for what names no field. */
export type EndpointFormErrors = Partial<Record<'url' | 'event_types' | 'description' | 'form', string>>;

function describedBy(errors: EndpointFormErrors, field: keyof EndpointFormErrors, hint?: string) {
  const ids = [hint, errors[field] ? `${field}-error` : undefined].filter(Boolean).join(' ');
  return html`${ids ? html` aria-describedby="${ids}"` : ''}${errors[field] ? html` aria-invalid="true"` : ''}`;
}

function fieldError(errors: EndpointFormErrors, field: keyof EndpointFormErrors): Html | '' {
  return errors[field] ? html`<p class="field-error" id="${field}-error">${errors[field]}</p>` : '';
}

function endpointRow(area: Area, e: WebhookEndpoint): Html {
  const state = e.enabled ? 'Enabled' : e.disabledReason ? 'Disabled by Lectern' : 'Disabled';
  return html`<tr><td><a href="${areaPath(area.school.id, `/webhooks/${e.id}`)}">${e.url}</a>${e.description ? html`<br><span class="muted">${e.description}</span>` : ''}</td><td><code>${e.eventTypes.join(', ')}</code></td><td>${state}</td></tr>`;
}

/** Webhooks: the endpoints, a warning for each one Lectern disabled, and the form to add one. */
export function webhooksPage(
  area: Area,
  endpoints: readonly WebhookEndpoint[],
  form: { values: EndpointFormValues; errors: EndpointFormErrors },
  done: string | undefined,
): Html {
  const disabled = endpoints.filter((e) => !e.enabled && e.disabledReason);
  return html`${areaNav(area, 'webhooks')}
<h1>${area.school.name} · Webhooks</h1>
${doneNotice(done)}
${disabled.map((e) => notice('warning', html`<strong>${e.url}</strong> was disabled: ${e.disabledReason} Fix it, then enable it on its page; waiting events are delivered then.`))}
<p>Lectern posts your school's events to these URLs, signed the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> way (<code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>).</p>
${
  endpoints.length === 0
    ? html`<p class="muted">No endpoints yet.</p>`
    : html`<table id="endpoints"><thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th></tr></thead><tbody>${endpoints.map((e) => endpointRow(area, e))}</tbody></table>`
}
<h2 id="add">Add an endpoint</h2>
${
  form.errors.form
    ? notice('error', form.errors.form)
    : Object.keys(form.errors).length > 0
      ? notice('error', 'The endpoint was not added: correct the fields marked below.')
      : ''
}
<form method="post" action="${areaPath(area.school.id, '/webhooks')}" novalidate>
${csrfField(area.viewer)}
<label for="url">URL (https)</label>
<input id="url" name="url" type="url" required value="${form.values.url}"${describedBy(form.errors, 'url')}>
${fieldError(form.errors, 'url')}
<label for="event_types">Event types</label>
<input id="event_types" name="event_types" required value="${form.values.eventTypes}"${describedBy(form.errors, 'event_types', 'types-help')}>
<p id="types-help" class="muted">Comma-separated, up to ${MAX_EVENT_PATTERNS} deliverable event types: exact types, <code>group.*</code> (e.g. <code>enrollment.*</code>) or <code>*</code> for all.</p>
${fieldError(form.errors, 'event_types')}
<label for="description">Description (at most ${MAX_DESCRIPTION_LENGTH} characters)</label>
<input id="description" name="description" value="${form.values.description}"${describedBy(form.errors, 'description')}>
${fieldError(form.errors, 'description')}
<div class="actions start"><button class="primary" type="submit">Add endpoint</button></div>
</form>`;
}

/** The signing secret, shown once after create or rotate. */
export function endpointSecretPage(
  area: Area,
  endpoint: WebhookEndpoint,
  secret: string,
  rotated: boolean,
): Html {
  return html`${areaNav(area, 'webhooks')}
<h1>${rotated ? 'New signing secret' : 'Endpoint added'}</h1>
${notice('success', rotated ? `The old secret keeps signing beside the new one until ${endpoint.previousSecretExpiresAt ?? 'now'}.` : `Events for ${endpoint.url} are signed with this secret.`)}
<p>Signing secret</p>
<code class="secret" id="webhook-secret">${secret}</code>
${notice('warning', 'Copy the secret now and store it safely: it is shown only once. If it is lost, rotate it.')}
<p><a href="${areaPath(area.school.id, `/webhooks/${endpoint.id}`)}">Continue to the endpoint</a></p>`;
}

function attemptRow(a: WebhookAttempt): Html {
  return html`<tr><td>${when(a.attemptedAt)}</td><td><code>${a.eventType}</code></td><td>${a.statusCode ?? '—'}</td><td>${a.latencyMs} ms</td><td><code class="secret">${a.error ?? a.responseExcerpt.slice(0, 200)}</code></td><td>${a.nextRetryAt ? when(a.nextRetryAt) : html`<span class="muted">none</span>`}</td></tr>`;
}

const button = (area: Area, e: WebhookEndpoint, action: string, label: string, kind = 'secondary') =>
  html`<form class="inline" method="post" action="${areaPath(area.school.id, `/webhooks/${e.id}/${action}`)}">${csrfField(area.viewer)}<button class="${kind}" type="submit">${label}</button></form>`;

/** One endpoint: its state, recent attempts, and its actions. */
export function endpointPage(
  area: Area,
  e: WebhookEndpoint,
  attempts: readonly WebhookAttempt[],
  done: string | undefined,
  error?: string,
): Html {
  return html`${areaNav(area, 'webhooks')}
<h1>${e.url}</h1>
${doneNotice(done)}
${error ? notice('error', error) : ''}
${!e.enabled && e.disabledReason ? notice('warning', html`Disabled by Lectern: ${e.disabledReason}`) : ''}
<dl>
<dt>Events</dt><dd><code>${e.eventTypes.join(', ')}</code></dd>
<dt>State</dt><dd id="endpoint-state">${e.enabled ? 'Enabled' : 'Disabled'}</dd>
<dt>Failing since</dt><dd>${when(e.failingSince)}</dd>
<dt>Description</dt><dd>${e.description || html`<span class="muted">none</span>`}</dd>
</dl>
<div class="actions start">
${button(area, e, e.enabled ? 'disable' : 'enable', e.enabled ? 'Disable' : 'Enable', e.enabled ? 'secondary' : 'primary')}
${e.enabled ? button(area, e, 'test', 'Send a test event') : ''}
${button(area, e, 'rotate', 'Rotate the secret')}
<a href="${areaPath(area.school.id, `/webhooks/${e.id}/delete`)}">Delete endpoint</a>
</div>
<h2>Replay</h2>
<form method="post" action="${areaPath(area.school.id, `/webhooks/${e.id}/replay`)}">
${csrfField(area.viewer)}
<label for="since">Send every subscribed event since (UTC date)</label>
<input id="since" name="since" type="date" required>
<div class="actions start"><button class="secondary" type="submit">Replay</button></div>
</form>
<h2>Recent attempts</h2>
${
  attempts.length === 0
    ? html`<p class="muted">No attempts yet.</p>`
    : html`<table id="attempts"><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Answer</th><th scope="col">Next retry</th></tr></thead><tbody>${attempts.map(attemptRow)}</tbody></table>`
}`;
}

/** The field the confirmation form adds: a delete POST without it only leads to this page. */
export const DELETE_CONFIRMED = 'confirmed';

/** Asks before deleting an endpoint. */
export function deleteEndpointPage(area: Area, e: WebhookEndpoint): Html {
  const endpointPath = areaPath(area.school.id, `/webhooks/${e.id}`);
  return html`${areaNav(area, 'webhooks')}
<h1>Delete this endpoint?</h1>
<p>Events stop going to <strong>${e.url}</strong> at once. This cannot be undone: to receive events
there again, add a new endpoint (it gets a new signing secret).</p>
${confirmForm(area.viewer, `${endpointPath}/delete`, 'Delete endpoint', endpointPath, { [DELETE_CONFIRMED]: 'yes' })}`;
}
