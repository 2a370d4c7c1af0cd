/**
 * `/account/settings`: the person's name, password and other sessions. Each form
 * posts to its own action, answered by a redirect back here on success (POST-redirect-GET) or by
 * this page again with the form's error.
 */
import { html } from 'hono/html';
import { MIN_PASSWORD_LENGTH } from '../../crypto/passwords.ts';
import { PERSON_NAME_MAX } from '../../domain/school/person-name.ts';
import type { Html } from '../layout.ts';
import { csrfField, type NavLink, notice, topNav, type Viewer } from '../shared/page-kit.ts';

const SETTINGS_DONE: Record<string, string> = {
  name: 'Your name was changed.',
  password: 'Your password was changed. Your other sessions were signed out.',
  sessions: 'Your other sessions were signed out.',
};

/** Which form an error belongs to, and what it says. */
export interface SettingsError {
  readonly form: 'name' | 'password';
  readonly message: string;
}

function fieldError(
  id: string,
  error: SettingsError | undefined,
  form: SettingsError['form'],
): Html | string {
  return error?.form === form ? html`<p class="field-error" id="${id}">${error.message}</p>` : '';
}

const invalid = (error: SettingsError | undefined, form: SettingsError['form'], id: string) =>
  error?.form === form ? html` aria-invalid="true" aria-describedby="${id}"` : '';

function nameForm(viewer: Viewer, error?: SettingsError): Html {
  return html`<section aria-labelledby="name-heading">
<h2 id="name-heading">Name</h2>
<form method="post" action="/account/name" novalidate>${csrfField(viewer)}
<label for="name">Your name</label>
<input id="name" name="name" type="text" autocomplete="name" maxlength="${PERSON_NAME_MAX}" required value="${viewer.user.name}"${invalid(error, 'name', 'name-error')}>
${fieldError('name-error', error, 'name')}
<div class="actions start"><button class="primary" type="submit">Save name</button></div>
</form></section>`;
}

function passwordForm(viewer: Viewer, error?: SettingsError): Html {
  return html`<section aria-labelledby="password-heading">
<h2 id="password-heading">Password</h2>
<form method="post" action="/account/password" novalidate>${csrfField(viewer)}
<input type="hidden" name="username" value="${viewer.user.email}" autocomplete="username">
<label for="current">Current password</label>
<input id="current" name="current" type="password" autocomplete="current-password" required${invalid(error, 'password', 'password-error')}>
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required aria-describedby="new-password-hint">
<p class="hint" id="new-password-hint">At least ${MIN_PASSWORD_LENGTH} characters. Changing it signs out your other sessions.</p>
<label for="confirm">New password, again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
${fieldError('password-error', error, 'password')}
<div class="actions start"><button class="primary" type="submit">Change password</button></div>
</form></section>`;
}

function sessionsForm(viewer: Viewer, others: number): Html {
  return html`<section aria-labelledby="sessions-heading">
<h2 id="sessions-heading">Sessions</h2>
<p>${others === 0 ? 'You are signed in only here.' : `You are signed in here and in ${others} other browser${others === 1 ? '' : 's'}.`}</p>
<form method="post" action="/account/sessions/sign-out-others">${csrfField(viewer)}
<div class="actions start"><button class="secondary" type="submit"${others === 0 ? ' disabled' : ''}>Sign out other sessions</button></div>
</form>
<p class="muted">Apps you connected keep working; disconnect them on <a href="/account">your account page</a>.</p>
</section>`;
}

/** The whole settings page. */
export function settingsPage(
  viewer: Viewer,
  nav: readonly NavLink[],
  state: { done?: string; error?: SettingsError; otherSessions: number },
): Html {
  const done = state.done && Object.hasOwn(SETTINGS_DONE, state.done) ? SETTINGS_DONE[state.done] : undefined;
  return html`${topNav(viewer, nav)}
<h1>Account settings</h1>
${done ? notice('success', done) : ''}
${state.error ? notice('error', html`Nothing was changed: ${state.error.message}`) : ''}
${nameForm(viewer, state.error)}
${passwordForm(viewer, state.error)}
${sessionsForm(viewer, state.otherSessions)}`;
}
