/** Developers → OAuth applications: the member app pages (spec §5.2 item 5). */
import { html } from 'hono/html';
import {
  MAX_REDIRECT_URIS,
  MEMBER_APP_SCOPES,
  type MemberApp,
  type MemberAppErrors,
} from '../../oauth/clients/member-apps.ts';
import { describeScope } from '../../oauth/scopes.ts';
import type { Html } from '../layout.ts';
import { confirmForm, csrfField, notice, when } from '../shared/page-kit.ts';
import { type Area, areaNav, areaPath } from './area.ts';
import { doneNotice, scopeList } from './views.ts';

const TYPE_LABEL = { none: 'Public', client_secret_post: 'Confidential' } as const;

/** What the secret page shows once, carried by the session flash (http/flash.ts). */
export interface SecretFlash {
  readonly secret: string;
  readonly rotated: boolean;
  /** Until when the replaced secret keeps working (ISO); null when it stopped at once. */
  readonly previousValidUntil: string | null;
}

/** An overlap in words: "24 hours". */
function overlapText(seconds: number): string {
  const hours = Math.round(seconds / 3600);
  return hours === 1 ? '1 hour' : `${hours} hours`;
}

const appPath = (area: Area, app: Pick<MemberApp, 'clientId'>, rest = '') =>
  areaPath(area.school.id, `/apps/${encodeURIComponent(app.clientId)}${rest}`);

/** The list of the school's member apps. */
export function appListPage(area: Area, apps: readonly MemberApp[], done: string | undefined): Html {
  return html`${areaNav(area, 'apps')}
<h1>${area.school.name} · OAuth applications</h1>
${doneNotice(done)}
${
  area.developers
    ? ''
    : notice(
        'warning',
        html`MCP connections are off: these apps cannot be authorized or get tokens until you turn it on again in <a href="${areaPath(area.school.id)}">Settings</a>. You can still edit or delete them.`,
      )
}
<p>Member apps let students and staff of ${area.school.name} connect an app to their own account: their
courses, progress, orders and event registrations. Give the app's developer its client ID; anyone with a
role at ${area.school.name} can then authorize it.</p>
${area.developers ? html`<p><a href="${areaPath(area.school.id, '/apps/new')}">Create an app</a></p>` : ''}
${
  apps.length === 0
    ? html`<p class="muted">No member apps yet.</p>`
    : html`<div class="table-wrap"><table class="stack">
<thead><tr><th scope="col">Name</th><th scope="col">Client ID</th><th scope="col">Type</th><th scope="col">Scopes</th><th scope="col">Created</th></tr></thead>
<tbody>${apps.map(
        (app) => html`<tr>
<td><a href="${appPath(area, app)}">${app.name}</a></td>
<td data-label="Client ID"><code>${app.clientId}</code></td>
<td data-label="Type">${TYPE_LABEL[app.authMethod]}</td>
<td data-label="Scopes">${app.scopes.map((s) => html`<code>${s}</code> `)}</td>
<td data-label="Created">${when(app.createdAt)}</td>
</tr>`,
      )}</tbody>
</table></div>`
}`;
}

/** Values a form shows again (after an error, or of the app being edited). */
export interface AppFormValues {
  readonly name: string;
  readonly redirectUris: string;
  readonly authMethod: string;
  readonly scopes: readonly string[];
}

function describedBy(errors: MemberAppErrors, field: keyof MemberAppErrors, hint?: string) {
  const ids = [hint, errors[field] ? `${field}-error` : undefined].filter(Boolean).join(' ');
  return html`${ids ? html` aria-describedby="${ids}"` : ''}${errors[field] ? html` aria-invalid="true"` : ''}`;
}

function fieldError(errors: MemberAppErrors, field: keyof MemberAppErrors): Html | '' {
  return errors[field] ? html`<p class="field-error" id="${field}-error">${errors[field]}</p>` : '';
}

/** The create / edit form; the client type is chosen at creation only. */
function appForm(
  area: Area,
  action: string,
  values: AppFormValues,
  errors: MemberAppErrors,
  mode: 'create' | 'edit',
): Html {
  const typeChoice =
    mode === 'create'
      ? html`<fieldset${describedBy(errors, 'auth_method')}>
<legend>Client type</legend>
<label class="check"><input type="radio" name="auth_method" value="none"${values.authMethod !== 'client_secret_post' ? html` checked` : ''}>
<span><strong>Public</strong>: runs on people's devices or in a browser and cannot keep a secret; uses PKCE only (token endpoint auth method <code>none</code>).</span></label>
<label class="check"><input type="radio" name="auth_method" value="client_secret_post"${values.authMethod === 'client_secret_post' ? html` checked` : ''}>
<span><strong>Confidential</strong>: runs on a server that keeps a client secret, sent with PKCE (HTTP Basic, <code>client_secret_basic</code>, or <code>client_secret_post</code>).</span></label>
${fieldError(errors, 'auth_method')}
</fieldset>`
      : '';
  return html`<form method="post" action="${action}" novalidate>
${csrfField(area.viewer)}
<label for="name">Name</label>
<input id="name" name="name" type="text" maxlength="80" required value="${values.name}"${describedBy(errors, 'name', 'name-hint')}>
<p class="hint" id="name-hint">Shown to people on the consent page.</p>
${fieldError(errors, 'name')}
<label for="redirect_uris">Redirect URIs</label>
<textarea id="redirect_uris" name="redirect_uris" rows="3" required spellcheck="false"${describedBy(errors, 'redirect_uris', 'redirect-hint')}>${values.redirectUris}</textarea>
<p class="hint" id="redirect-hint">One per line, up to ${MAX_REDIRECT_URIS}. <code>https://</code> addresses match exactly; loopback
addresses (<code>http://127.0.0.1/callback</code>, <code>http://[::1]/…</code>, <code>http://localhost/…</code>) match on any port. No <code>#fragment</code>.</p>
${fieldError(errors, 'redirect_uris')}
${typeChoice}
<fieldset${describedBy(errors, 'scopes')}>
<legend>Scopes the app may request</legend>
${MEMBER_APP_SCOPES.map(
  (
    s,
  ) => html`<label class="check"><input type="checkbox" name="scope" value="${s}"${values.scopes.includes(s) ? html` checked` : ''}>
<span><code>${s}</code> · ${describeScope(s)}</span></label>`,
)}
${fieldError(errors, 'scopes')}
</fieldset>
<div class="actions start"><button class="primary" type="submit">${mode === 'create' ? 'Create app' : 'Save changes'}</button></div>
</form>`;
}

/** The page with the create form. */
export function newAppPage(area: Area, values: AppFormValues, errors: MemberAppErrors): Html {
  const failed = Object.keys(errors).length > 0;
  return html`${areaNav(area, 'apps')}
<h1>Create an OAuth application</h1>
${failed ? notice('error', 'The app was not created: correct the fields marked below.') : ''}
${appForm(area, areaPath(area.school.id, '/apps'), values, errors, 'create')}`;
}

/**
 * Shown once, on the page a create or rotate form redirects to: the client_id and the secret
 * (the page is no-store; the flash that carried the secret is gone once this renders).
 */
export function secretPage(area: Area, app: MemberApp, flash: SecretFlash): Html {
  const replaced = flash.previousValidUntil
    ? html`The secret was replaced. The previous one keeps working until ${when(flash.previousValidUntil)}, then only this one does: update your app before then.`
    : 'The secret was replaced; the old one no longer works.';
  return html`${areaNav(area, 'apps')}
<h1>${flash.rotated ? 'New client secret' : `${app.name} is ready`}</h1>
${notice('success', flash.rotated ? replaced : 'The app was created.')}
<p>Client ID</p>
<code class="secret" id="client-id">${app.clientId}</code>
<p>Client secret</p>
<code class="secret" id="client-secret">${flash.secret}</code>
${notice('warning', 'Copy the secret now and store it safely: it is shown only once, and reloading this page will not show it again. If it is lost, rotate it.')}
<p><a href="${appPath(area, app)}">Continue to ${app.name}</a></p>`;
}

/** The secret page again (a refresh, a second tab, a bookmark): the secret is not shown twice. */
export function secretGonePage(area: Area, app: MemberApp): Html {
  return html`${areaNav(area, 'apps')}
<h1>Secret already shown</h1>
${notice('warning', 'A client secret is shown once, right after it is made, and this one has been shown already (or was never collected). Lectern keeps only its hash, so it cannot be shown again.')}
<p>If you did not copy it, rotate the secret on the app's page to get a new one.</p>
<p><a href="${appPath(area, app)}">Go to ${app.name}</a></p>`;
}

/** An app's page: its details, the edit form, secret rotation and the way to delete it. */
export function appPage(
  area: Area,
  app: MemberApp,
  form: { values: AppFormValues; errors: MemberAppErrors },
  done: string | undefined,
  options: { revokedGrants?: number; overlapSeconds: number },
): Html {
  const failed = Object.keys(form.errors).length > 0;
  const revokedGrants = options.revokedGrants ?? 0;
  return html`${areaNav(area, 'apps')}
<h1>${app.name}</h1>
${doneNotice(done)}
${revokedGrants > 0 ? notice('warning', `${revokedGrants} connection(s) held a scope you removed and were revoked.`) : ''}
${failed ? notice('error', 'The changes were not saved: correct the fields marked below.') : ''}
<dl>
<dt>Client ID</dt><dd><code id="client-id">${app.clientId}</code></dd>
<dt>Type</dt><dd>${TYPE_LABEL[app.authMethod]} (<code>${app.authMethod}</code>)</dd>
<dt>Scopes</dt><dd>${scopeList(app.scopes)}</dd>
<dt>Created</dt><dd>${when(app.createdAt)}</dd>
</dl>
${
  app.authMethod === 'client_secret_post'
    ? html`<h2>Client secret</h2>
<p>Last replaced: ${app.secretRotatedAt ? when(app.secretRotatedAt) : html`never (set at creation)`}.</p>
${app.previousSecretValidUntil ? notice('warning', html`The previous secret keeps working until ${when(app.previousSecretValidUntil)}.`) : ''}
<p id="rotation-help">${rotationHelp(options.overlapSeconds)}</p>
<form method="post" action="${appPath(area, app, '/rotate-secret')}">${csrfField(area.viewer)}
<div class="actions start"><button class="secondary" type="submit" aria-describedby="rotation-help">Rotate secret</button></div></form>`
    : ''
}
<h2>Edit</h2>
${appForm(area, appPath(area, app), form.values, form.errors, 'edit')}
<h2>Delete</h2>
<p>Deleting the app disconnects everyone who authorized it. <a href="${appPath(area, app, '/delete')}">Delete ${app.name}…</a></p>`;
}

function rotationHelp(overlapSeconds: number): string {
  if (overlapSeconds <= 0) return 'Rotating makes a new secret and stops the current one at once.';
  return `Rotating makes a new secret; the current one keeps working for ${overlapText(overlapSeconds)}, so you can update your app, then stops. Rotating again within that time stops the oldest secret at once.`;
}

/** Asks before deleting: what goes with the app. */
export function deleteAppPage(area: Area, app: MemberApp, connections: number): Html {
  return html`${areaNav(area, 'apps')}
<h1>Delete ${app.name}?</h1>
${notice('warning', html`This removes the app and revokes its ${connections} active ${connections === 1 ? 'connection' : 'connections'}: their tokens stop working at once. The client ID <code>${app.clientId}</code> can never be used again.`)}
${confirmForm(area.viewer, appPath(area, app, '/delete'), 'Delete app', appPath(area, app))}`;
}
