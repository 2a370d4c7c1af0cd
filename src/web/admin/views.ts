/** The operator area's Settings and Connected apps pages. */

import { html } from 'hono/html';
import { isConsoleClient } from '../../oauth/clients/console-clients.ts';
import type { Connection } from '../../oauth/grants/connected-apps.ts';
import { describeScope } from '../../oauth/scopes.ts';
import type { ClientKind } from '../../oauth/tables.ts';
import type { Html } from '../layout.ts';
import { confirmForm, csrfField, notice, when } from '../shared/page-kit.ts';
import { type Area, areaNav, areaPath } from './area.ts';

/** Messages shown after a redirect, chosen by a fixed code (nothing from the URL is echoed). */
const DONE_MESSAGES: Record<string, string> = {
  'beta-on': 'MCP connections are on. Developers → OAuth applications is now available.',
  'beta-off':
    'MCP connections are off. Member apps are kept, and can still be edited or deleted, but cannot be authorized or refresh tokens until you turn it on again.',
  created: 'The app was created. A public app has no secret: it proves itself with PKCE.',
  updated: 'The app was saved.',
  deleted: 'The app was deleted and every connection to it was revoked.',
  revoked: 'The app was disconnected. Its tokens no longer work.',
  'not-found': 'That connection no longer exists.',
};

/** The notice for a `?done=` code, if it is one of ours. */
export function doneNotice(code: string | undefined): Html | '' {
  return code && Object.hasOwn(DONE_MESSAGES, code) ? notice('success', DONE_MESSAGES[code]) : '';
}

/** Settings → Beta features → MCP connections, and the way into Developers once it is on. */
export function settingsPage(area: Area, done: string | undefined, appCount: number): Html {
  const on = area.developers;
  return html`${areaNav(area, 'settings')}
<h1>${area.school.name} · Settings</h1>
${doneNotice(done)}
<h2 id="beta">Beta features</h2>
<form method="post" action="${areaPath(area.school.id, '/beta')}">
${csrfField(area.viewer)}
<fieldset aria-describedby="mcp-help">
<legend>MCP connections</legend>
<p id="mcp-help">Lets people at your school connect AI agents and apps to their account. While it is on,
you can create member apps under Developers → OAuth applications. Turning it off keeps your apps but stops
them from being authorized or getting new tokens.</p>
<p>Status: <strong id="mcp-status">${on ? 'On' : 'Off'}</strong></p>
<div class="actions start">
${
  on
    ? html`<button class="secondary" type="submit" name="enabled" value="off">Turn off MCP connections</button>`
    : html`<button class="primary" type="submit" name="enabled" value="on">Turn on MCP connections</button>`
}
</div>
</fieldset>
</form>
${
  on
    ? html`<h2 id="developers">Developers</h2>
<p><a href="${areaPath(area.school.id, '/apps')}">OAuth applications</a>
<span class="muted">(${appCount} ${appCount === 1 ? 'app' : 'apps'})</span>: apps your students and staff can
connect to their own account at ${area.school.name}.</p>`
    : appCount > 0
      ? html`<h2 id="developers">Developers</h2>
<p>Your ${appCount} member ${appCount === 1 ? 'app is' : 'apps are'} kept while MCP connections are off, but cannot be
authorized. <a href="${areaPath(area.school.id, '/apps')}">Review or delete member apps</a>.</p>`
      : ''
}
<h2>Connected apps</h2>
<p><a href="${areaPath(area.school.id, '/connected')}">See every app people at ${area.school.name} have connected</a>, and disconnect any of them.</p>`;
}

/** Who a client is, in words (the consent page uses the same kinds). */
function kindLabel(kind: ClientKind, clientId: string): string {
  if (isConsoleClient({ id: clientId })) return 'Part of Lectern';
  switch (kind) {
    case 'vendor':
      return 'Known integration';
    case 'loopback':
      return 'App on a computer';
    case 'cimd':
      return 'Web app';
    case 'member':
      return 'Your member app';
  }
}

/** Scopes as a short list, each with its plain meaning as a tooltip-free description. */
export function scopeList(scopes: readonly string[]): Html {
  return html`<ul class="scopes">${scopes.map(
    (s) => html`<li><code>${s}</code> <span class="muted">${describeScope(s)}</span></li>`,
  )}</ul>`;
}

/** Connected apps: every live third-party grant at the school, each with a revoke button. */
export function connectedPage(
  area: Area,
  connections: readonly Connection[],
  done: string | undefined,
): Html {
  const rows = connections.map(
    (conn) => html`<tr>
<td><strong>${conn.clientName}</strong><br><span class="muted">${kindLabel(conn.clientKind, conn.clientId)}</span></td>
<td data-label="Person">${conn.userName}<br><span class="muted">${conn.userEmail}</span></td>
<td data-label="Access">${scopeList(conn.scopes)}</td>
<td data-label="Connected">${when(conn.createdAt)}</td>
<td data-label="Last used">${when(conn.lastUsedAt)}</td>
<td><a href="${areaPath(area.school.id, `/connected/revoke?grant=${encodeURIComponent(conn.key)}`)}" aria-label="Revoke ${conn.clientName} for ${conn.userEmail}">Revoke…</a></td>
</tr>`,
  );
  return html`${areaNav(area, 'connected')}
<h1>${area.school.name} · Connected apps</h1>
${doneNotice(done)}
<p>Apps people have allowed to act for them at ${area.school.name}. Revoking one ends its access at once:
its tokens stop working, and the person must approve it again to reconnect.</p>
${
  connections.length === 0
    ? html`<p class="muted" id="no-connections">No apps are connected.</p>`
    : html`<div class="table-wrap"><table class="stack">
<caption class="muted">${connections.length} connected ${connections.length === 1 ? 'app' : 'apps'}</caption>
<thead><tr><th scope="col">App</th><th scope="col">Person</th><th scope="col">Access</th><th scope="col">Connected</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}`;
}

/** Asks before revoking a connection: what ends, and for whom. */
export function revokeConnectionPage(area: Area, conn: Connection): Html {
  return html`${areaNav(area, 'connected')}
<h1>Revoke ${conn.clientName}?</h1>
${notice('warning', html`${conn.clientName} stops acting for ${conn.userName} (${conn.userEmail}) at ${area.school.name} at once: its tokens stop working, and ${conn.userName} must approve it again to reconnect.`)}
<h2>Access that ends</h2>
${scopeList(conn.scopes)}
${confirmForm(area.viewer, areaPath(area.school.id, '/connected/revoke'), 'Revoke access', areaPath(area.school.id, '/connected'), { grant: conn.key })}`;
}

/** The school picker shown at `/admin` to an operator of several schools. */
export function schoolPickerPage(schools: readonly { id: string; name: string }[]): Html {
  return html`<h1>Admin</h1>
<p>Choose the school to manage.</p>
<ul>${schools.map((s) => html`<li><a href="${areaPath(s.id)}">${s.name}</a></li>`)}</ul>
<p><a href="/account">Go to your account</a></p>`;
}
