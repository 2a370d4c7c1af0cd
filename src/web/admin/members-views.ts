/** Members: the school's people and their roles, and the invitations. */
import { html } from 'hono/html';
import type { Invitation } from '../../domain/school/invitations.ts';
import type { Member } from '../../domain/school/members-admin.ts';
import { ROLES, type Role } from '../../domain/school/roles.ts';
import type { Html } from '../layout.ts';
import { confirmForm, csrfField, notice, when } from '../shared/page-kit.ts';
import { type Area, areaNav, areaPath } from './area.ts';

/** Messages shown after a redirect, chosen by a fixed code (nothing from the URL is echoed). */
const DONE: Record<string, string> = {
  invited: 'The invitation was created.',
  'invited-email': 'The invitation was created and emailed.',
  resent: 'A new invitation link was made; the old link no longer works.',
  'resent-email': 'A new invitation was emailed; the old link no longer works.',
  revoked: 'The invitation was revoked: its link no longer works.',
  roles: 'The roles were saved.',
  removed: 'The person was removed from the school. Their tokens for this school stopped working.',
  reset: 'A password reset link was made.',
  'reset-email': 'A password reset link was emailed to the person. It works once, within one hour.',
};

/** What a redirect shows once: the link of an invitation, when no email could carry it. */
export interface ShownLink {
  readonly email: string;
  readonly link: string;
}

/** What the members page shows besides the lists. */
export interface MembersPageState {
  readonly done?: string;
  readonly shown?: ShownLink;
  /** A password reset link to hand over (no SMTP), shown once. */
  readonly shownReset?: ShownLink;
  readonly error?: string;
  readonly inviteEmail?: string;
  readonly mailEnabled: boolean;
  /** Owners may grant the owner role; admins see it but cannot tick it. */
  readonly viewerIsOwner: boolean;
}

const membersPath = (area: Area, rest = '') => areaPath(area.school.id, `/members${rest}`);

function roleBoxes(name: string, idPrefix: string, checked: readonly Role[], ownerAllowed: boolean): Html {
  return html`${ROLES.map(
    (r) =>
      html`<label class="check" for="${idPrefix}-${r}"><input type="checkbox" id="${idPrefix}-${r}" name="${name}" value="${r}"${checked.includes(r) ? html` checked` : ''}${r === 'owner' && !ownerAllowed ? html` disabled` : ''}> ${r}</label>`,
  )}`;
}

function shownLink(shown: ShownLink): Html {
  return html`<div class="notice success" role="status">
<p>Send this link to <strong>${shown.email}</strong> yourself (no email is configured on this server).
It works once, for 7 days, and is shown only now: if it is lost, resend the invitation.</p>
<code class="secret" id="invitation-link">${shown.link}</code>
</div>`;
}

function shownResetLink(shown: ShownLink): Html {
  return html`<div class="notice success" role="status">
<p>Give this password reset link to <strong>${shown.email}</strong> yourself (no email is configured on this server).
It sets a new password once, within one hour, and is shown only now: if it is lost, send a new one.</p>
<code class="secret" id="password-reset-link">${shown.link}</code>
</div>`;
}

function inviteForm(area: Area, state: MembersPageState): Html {
  return html`<h2 id="invite">Invite someone</h2>
<form method="post" action="${areaPath(area.school.id, '/invitations')}" novalidate>
${csrfField(area.viewer)}
<label for="invite-email">Email</label>
<input id="invite-email" name="email" type="email" required autocomplete="off" value="${state.inviteEmail ?? ''}">
<fieldset><legend>Roles</legend>${roleBoxes('role', 'invite-role', ['lecturer'], state.viewerIsOwner)}</fieldset>
<p class="hint">${state.mailEnabled ? 'The person gets an email with a link to join.' : 'No email is configured: you will get the link to send yourself.'} The link works once, for 7 days.</p>
<div class="actions start"><button class="primary" type="submit">Send invitation</button></div>
</form>`;
}

function memberRow(area: Area, m: Member, state: MembersPageState): Html {
  const ownerLocked = m.roles.includes('owner') && !state.viewerIsOwner;
  return html`<tr>
<td>${m.name}<br><span class="muted">${m.email}</span></td>
<td data-label="Roles"><form method="post" action="${membersPath(area, `/${encodeURIComponent(m.id)}/roles`)}">
${csrfField(area.viewer)}
<fieldset${ownerLocked ? html` disabled` : ''}><legend>Roles of ${m.email}</legend>${roleBoxes('role', `roles-${m.id}`, m.roles, state.viewerIsOwner)}</fieldset>
<div class="actions start"><button class="secondary small" type="submit"${ownerLocked ? html` disabled` : ''}>Save roles</button></div>
</form></td>
<td data-label="Since">${when(m.createdAt)}</td>
<td>${
    ownerLocked
      ? html`<span class="muted">Owner</span>`
      : html`<a href="${membersPath(area, `/${encodeURIComponent(m.id)}/password-reset`)}" aria-label="Send password reset link to ${m.email}">Send password reset link</a><br>
<a href="${membersPath(area, `/${encodeURIComponent(m.id)}/remove`)}" aria-label="Remove ${m.email}">Remove</a>`
  }</td>
</tr>`;
}

function invitationRow(area: Area, i: Invitation): Html {
  const base = areaPath(area.school.id, `/invitations/${encodeURIComponent(i.id)}`);
  const open = i.status === 'pending' || i.status === 'expired';
  return html`<tr>
<td>${i.email}</td>
<td data-label="Roles">${i.roles.join(', ')}</td>
<td data-label="Status">${i.status}</td>
<td data-label="Expires">${when(i.expiresAt)}</td>
<td>${
    open
      ? html`<form class="inline" method="post" action="${base}/resend">${csrfField(area.viewer)}<button class="secondary small" type="submit" aria-label="Resend the invitation to ${i.email}">Resend</button></form>
<form class="inline" method="post" action="${base}/revoke">${csrfField(area.viewer)}<button class="danger small" type="submit" aria-label="Revoke the invitation to ${i.email}">Revoke</button></form>`
      : ''
  }</td>
</tr>`;
}

/** The members page: who has which role, the invitations, and the invite form. */
export function membersPage(
  area: Area,
  members: readonly Member[],
  invitations: readonly Invitation[],
  state: MembersPageState,
): Html {
  const done = state.done && Object.hasOwn(DONE, state.done) ? notice('success', DONE[state.done]) : '';
  return html`${areaNav(area, 'members')}
<h1>${area.school.name} · Members</h1>
${done}${state.shown ? shownLink(state.shown) : ''}${state.shownReset ? shownResetLink(state.shownReset) : ''}${state.error ? notice('error', state.error) : ''}
${inviteForm(area, state)}
<h2 id="invitations">Invitations</h2>
${
  invitations.length === 0
    ? html`<p class="muted">No invitations.</p>`
    : html`<div class="table-wrap"><table class="stack">
<thead><tr><th scope="col">Email</th><th scope="col">Roles</th><th scope="col">Status</th><th scope="col">Expires</th><th scope="col"><span class="muted">Actions</span></th></tr></thead>
<tbody>${invitations.map((i) => invitationRow(area, i))}</tbody>
</table></div>`
}
<h2 id="members">People</h2>
<p>Only an owner can grant, change or remove the owner role; a school always keeps one owner.</p>
<div class="table-wrap"><table class="stack">
<thead><tr><th scope="col">Person</th><th scope="col">Roles</th><th scope="col">Since</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${members.map((m) => memberRow(area, m, state))}</tbody>
</table></div>`;
}

/** Asks before removing someone from the school. */
export function removeMemberPage(area: Area, m: Member): Html {
  return html`${areaNav(area, 'members')}
<h1>Remove ${m.name}?</h1>
<p><strong>${m.email}</strong> will lose their roles (${m.roles.join(', ')}) at ${area.school.name}, and every
token they hold for this school stops working at once. Their account itself stays.</p>
${confirmForm(area.viewer, membersPath(area, `/${encodeURIComponent(m.id)}/remove`), `Remove ${m.email}`, membersPath(area))}`;
}

/** Asks before starting a password reset for a member, saying where the link will go. */
export function passwordResetPage(area: Area, m: Member, mailEnabled: boolean): Html {
  const action = membersPath(area, `/${encodeURIComponent(m.id)}/password-reset`);
  return html`${areaNav(area, 'members')}
<h1>Send a password reset link to ${m.name}?</h1>
<p>${
    mailEnabled
      ? html`The link is emailed to <strong>${m.email}</strong>.`
      : html`No email is configured on this server: the link is shown to you once, to give to <strong>${m.email}</strong> yourself.`
  } It sets a new password once, within one hour; their current password keeps working until then.
Using it signs them out everywhere.</p>
<form method="post" action="${action}">${csrfField(area.viewer)}
<div class="actions start"><button class="primary" type="submit">Send password reset link</button>
<a href="${membersPath(area)}">Cancel</a></div></form>`;
}
