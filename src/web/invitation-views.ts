/**
 * What the invitation pages show: the invitation, the new person's form, Accept for the signed-in
 * invitee, and the ways on when the link is used, withdrawn or for another account.
 */
import type { Context } from 'hono';
import { html } from 'hono/html';
import { MIN_PASSWORD_LENGTH } from '../crypto/passwords.ts';
import type { InvitationByToken } from '../domain/school/invitations.ts';
import { PERSON_NAME_MAX } from '../domain/school/person-name.ts';
import { CSRF_FIELD } from '../http/sessions.ts';
import { type Html, sendPage } from './layout.ts';
import { notice } from './shared/page-kit.ts';
import type { PageRefusal } from './shared/refusal.ts';

const ROLE_WORDS = (roles: readonly string[]) => roles.join(', ');

/** An open invitation, as its link's holder sees it. */
export type Found = InvitationByToken;

/** An invitation page: forms post only here. */
export function page(c: Context, status: number, title: string, body: Html) {
  return sendPage(c, status, title, body, { formAction: ["'self'"] });
}

const WAYS_OUT = html`<p>Ask the person who invited you to send a new invitation. If you already joined, <a href="/login">sign in</a>.</p>`;

/** A token that names no invitation. */
export const NOT_FOUND =
  'This invitation link is not valid. It may have been copied incompletely, or replaced by a newer invitation (only the latest link works).';

/** Why an invitation can no longer be accepted, or undefined while it is open. */
export function closedReason(found: Found): string | undefined {
  switch (found.invitation.status) {
    case 'accepted':
      return 'This invitation was already used. Each invitation link works once.';
    case 'revoked':
      return `This invitation to ${found.schoolName} was withdrawn.`;
    case 'expired':
      return `This invitation to ${found.schoolName} has expired.`;
    default:
      return undefined;
  }
}

function heading(found: Found) {
  const by = found.inviterName ? html`${found.inviterName} invited you` : 'You are invited';
  return html`<h1>Join ${found.schoolName}</h1>
<p>${by} to join <strong>${found.schoolName}</strong> on Lectern as <strong>${ROLE_WORDS(found.invitation.roles)}</strong>.</p>`;
}

/** The form of someone without an account: a name and a password. */
export function newPersonForm(
  found: Found,
  action: string,
  csrf: string,
  values: { name: string },
  error?: string,
) {
  return html`${heading(found)}
${error ? html`<div class="notice error" role="alert" id="form-error"><p>${error}</p></div>` : ''}
<form method="post" action="${action}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<label for="email">Email</label>
<input id="email" type="email" value="${found.invitation.email}" readonly autocomplete="username">
<label for="name">Your name</label>
<input id="name" name="name" type="text" autocomplete="name" required maxlength="${PERSON_NAME_MAX}" value="${values.name}"${error ? html` aria-describedby="form-error"` : ''}>
<label for="password">Choose a password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="password-hint">
<p class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters.</p>
<div class="actions"><button class="primary" type="submit">Join ${found.schoolName}</button></div>
</form>
<p>Already use Lectern with ${found.invitation.email}? <a href="/login?return_to=${encodeURIComponent(action)}">Sign in to accept</a>.</p>`;
}

/** Accept, for the signed-in invitee. */
export function acceptForm(found: Found, action: string, csrf: string) {
  return html`${heading(found)}
<p>You are signed in as <strong>${found.invitation.email}</strong>.</p>
<form method="post" action="${action}">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<div class="actions"><button class="primary" type="submit">Accept and join ${found.schoolName}</button></div>
</form>`;
}

/** The email has an account: its owner signs in and accepts. */
export function signInFirst(found: Found, here: string) {
  return html`${heading(found)}
<p>This invitation is for <strong>${found.invitation.email}</strong>, which already has a Lectern account.
Sign in with it, then accept the invitation.</p>
<p><a href="/login?return_to=${encodeURIComponent(here)}">Sign in as ${found.invitation.email}</a></p>
<p class="muted">Forgot the password? Use “Forgot password?” on the sign-in page.</p>`;
}

/** The account's email is unproven and this link cannot prove it. */
export function unproven(found: Found) {
  return html`${heading(found)}
${notice('warning', html`Your account’s email address, <strong>${found.invitation.email}</strong>, is not confirmed yet, and this invitation was not sent to it by email.`)}
<p>Confirm the address by resetting your password (<a href="/password-reset">Forgot password?</a>): the link reaches only the owner of the mailbox. Or ask ${found.schoolName} to send the invitation again once they can email it.</p>`;
}

/** Signed in as another account than the invited one. */
export function wrongAccount(found: Found, signedInAs: string, here: string, csrf: string) {
  return html`${heading(found)}
${notice('warning', html`This invitation is for <strong>${found.invitation.email}</strong>, but you are signed in as <strong>${signedInAs}</strong>.`)}
<p>Sign out, then sign in as ${found.invitation.email} to accept it.</p>
<form method="post" action="/logout">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<input type="hidden" name="return_to" value="${here}">
<div class="actions"><button class="secondary" type="submit">Sign out and use ${found.invitation.email}</button></div>
</form>`;
}

/** A refusal in the invitation pages' words: a dead or throttled link says where to turn. */
export function refusalPage(c: Context, refusal: PageRefusal, here: string): Promise<Response> {
  const ways =
    refusal.status === 404 || refusal.status === 410 || refusal.status === 429
      ? WAYS_OUT
      : html`<p><a href="${here}">Open the invitation again</a></p>`;
  const body = html`<h1>${refusal.title}</h1>
${notice('error', refusal.detail)}
${ways}`;
  return sendPage(c, refusal.status, refusal.title, body, {
    formAction: ["'self'"],
    headers: { ...refusal.headers },
  });
}
