/**
 * `/account`: the signed-in person's own page (product.md §8): who they are, their schools, and
 * the apps they connected at each school, each revocable by them alone. The handlers run inside
 * the account area (area.ts), which has signed the viewer in and checked each POST's CSRF token.
 */
import type { Context } from 'hono';
import { html } from 'hono/html';
import { listMembershipsOfUser } from '../../domain/school/memberships.ts';
import { mayActFor, standingRoles } from '../../domain/school/standing.ts';
import type { AppContext } from '../../http/context.ts';
import {
  type Connection,
  listUserConnections,
  revokeOwnConnection,
} from '../../oauth/grants/connected-apps.ts';
import { describeScope } from '../../oauth/scopes.ts';
import type { Html } from '../layout.ts';
import { confirmForm, notice, sendAreaPage, topNav, type Viewer, when } from '../shared/page-kit.ts';
import type { ViewerEnv } from '../shared/viewer.ts';

const DONE: Record<string, string> = {
  revoked: 'The app was disconnected. Its tokens no longer work.',
  'not-found': 'That connection no longer exists.',
};

interface SchoolSection {
  readonly id: string;
  readonly name: string;
  readonly roles: readonly string[];
  readonly connections: Connection[];
}

function connectionList(connections: readonly Connection[]): Html {
  if (connections.length === 0) return html`<p class="muted">No connected apps.</p>`;
  return html`<div class="table-wrap"><table class="stack">
<thead><tr><th scope="col">App</th><th scope="col">It can</th><th scope="col">Connected</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${connections.map(
    (conn) => html`<tr>
<td><strong>${conn.clientName}</strong></td>
<td data-label="It can"><ul class="scopes">${conn.scopes.map((s) => html`<li>${describeScope(s)}</li>`)}</ul></td>
<td data-label="Connected">${when(conn.createdAt)}</td>
<td data-label="Last used">${when(conn.lastUsedAt)}</td>
<td><a href="/account/connections/revoke?grant=${encodeURIComponent(conn.key)}" aria-label="Disconnect ${conn.clientName} at ${conn.schoolName}">Disconnect…</a></td>
</tr>`,
  )}</tbody></table></div>`;
}

function accountPage(
  viewer: Viewer,
  sections: readonly SchoolSection[],
  done: string | undefined,
  operator: boolean,
  schools: ReadonlyArray<{ name: string; subdomain: string }>,
) {
  return html`${topNav(viewer, [
    { href: '/account', label: 'My account', current: true },
    ...(operator ? [{ href: '/admin', label: 'Admin' }] : []),
  ])}
<h1>Your account</h1>
${done && Object.hasOwn(DONE, done) ? notice('success', DONE[done]) : ''}
<dl>
<dt>Name</dt><dd id="account-name">${viewer.user.name}</dd>
<dt>Email</dt><dd id="account-email">${viewer.user.email}</dd>
</dl>
<p><a href="/account/settings">Change your name or password, or sign out your other sessions</a></p>
${
  schools.length > 0
    ? html`<h2>Your courses</h2>
<ul>${schools.map((s) => html`<li><a href="/schools/${encodeURIComponent(s.subdomain)}/learn">My courses at ${s.name}</a></li>`)}</ul>`
    : ''
}
<h2>Connected apps</h2>
<p>Apps you allowed to act for you. Disconnecting one ends its access at once; you can connect it again later.</p>
${
  sections.length === 0
    ? html`<p class="muted">You have no role at any school and no connected apps.</p>`
    : sections.map(
        (s) => html`<section aria-labelledby="school-${s.id}">
<h3 id="school-${s.id}">${s.name}${s.roles.length > 0 ? html` <span class="muted">(${s.roles.join(', ')})</span>` : ''}</h3>
${connectionList(s.connections)}
</section>`,
      )
}`;
}

/** Asks before disconnecting: which app, at which school, and what it could do. */
function disconnectPage(viewer: Viewer, conn: Connection): Html {
  return html`${topNav(viewer, [{ href: '/account', label: 'My account' }])}
<h1>Disconnect ${conn.clientName}?</h1>
${notice('warning', `${conn.clientName} stops acting for you at ${conn.schoolName} at once: its tokens stop working. You can connect it again later.`)}
<h2>What it can do now</h2>
<ul class="scopes">${conn.scopes.map((s) => html`<li>${describeScope(s)}</li>`)}</ul>
${confirmForm(viewer, '/account/connections/revoke', 'Disconnect', '/account', { grant: conn.key })}`;
}

type AccountContext = Context<ViewerEnv>;

/** The viewer's schools (active memberships) with their connected apps, and whether they run one. */
async function sectionsOf(ctx: AppContext, viewer: Viewer) {
  const memberships = (await listMembershipsOfUser(ctx.db, viewer.user.id)).filter(
    (m) => m.status === 'active',
  );
  const connections = await listUserConnections(ctx.db, viewer.user.id);
  const sections: SchoolSection[] = memberships.map((m) => ({
    id: m.schoolId,
    name: m.schoolName,
    roles: m.roles,
    connections: connections.filter((conn) => conn.schoolId === m.schoolId),
  }));
  // Connections at a school the person has since left stay visible, so they can be revoked.
  for (const conn of connections) {
    let section = sections.find((s) => s.id === conn.schoolId);
    if (!section) {
      section = { id: conn.schoolId, name: conn.schoolName, roles: [], connections: [] };
      sections.push(section);
    }
    if (!section.connections.includes(conn)) section.connections.push(conn);
  }
  const operator = memberships.some((m) => mayActFor('operator', standingRoles(m)));
  const schools = memberships.map((m) => ({ name: m.schoolName, subdomain: m.subdomain }));
  return { sections, operator, schools };
}

/** GET `/account`: who the viewer is, their schools and their connected apps. */
export function showAccount(ctx: AppContext) {
  return async (c: AccountContext) => {
    const viewer = c.var.viewer;
    const { sections, operator, schools } = await sectionsOf(ctx, viewer);
    const body = accountPage(viewer, sections, c.req.query('done'), operator, schools);
    return sendAreaPage(c, 200, 'Your account', body);
  };
}

/** GET `/account/connections/revoke`: asks before disconnecting one of the viewer's apps. */
export function confirmDisconnect(ctx: AppContext) {
  return async (c: AccountContext) => {
    const viewer = c.var.viewer;
    // Only the viewer's own connections are found: someone else's grant id is "no longer exists".
    const key = c.req.query('grant') ?? '';
    const found = (await listUserConnections(ctx.db, viewer.user.id)).find((conn) => conn.key === key);
    if (!found) return c.redirect('/account?done=not-found', 303);
    return sendAreaPage(c, 200, `Disconnect ${found.clientName}?`, disconnectPage(viewer, found));
  };
}

/** POST `/account/connections/revoke`: disconnects one of the viewer's own apps. */
export function disconnect(ctx: AppContext) {
  return async (c: AccountContext) => {
    const viewer = c.var.viewer;
    // Only the viewer's own grants are found: someone else's grant id revokes nothing.
    const grantId = c.var.form.get('grant') ?? '';
    const revoked = await revokeOwnConnection(ctx.db, viewer.user.id, grantId);
    return c.redirect(`/account?done=${revoked > 0 ? 'revoked' : 'not-found'}`, 303);
  };
}
