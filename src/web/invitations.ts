/**
 * `/invitations/<token>`: the page a person reaches from an invitation. It looks the same whether
 * or not the email has an account (without SMTP the inviter holds the link): a new person sets a
 * name and password and is signed in with the role; an existing account signs in as the invited
 * email and presses Accept. Unknown, used, revoked and expired links get a page that says so
 * (404 / 410), never a 5xx; the POSTs are throttled per address and per invitation.
 */
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import { hashPassword, MIN_PASSWORD_LENGTH, passwordProblem } from '../crypto/passwords.ts';
import { sha256 } from '../crypto/tokens.ts';
import { Text } from '../domain/kernel/fields.ts';
import {
  type Acceptance,
  acceptAsNewPerson,
  acceptInvitation,
  findInvitationByToken,
  type InvitationByToken,
  InvitationGoneError,
  UnprovenEmailError,
} from '../domain/school/invitations.ts';
import { mayActFor } from '../domain/school/standing.ts';
import { findUserById, type User } from '../domain/school/users.ts';
import { ProblemError } from '../errors/problem-error.ts';
import { clientAddress } from '../http/client-address.ts';
import type { AppContext, AppEnv } from '../http/context.ts';
import { logSecurityEvent } from '../http/security-log.ts';
import {
  CSRF_FIELD,
  csrfToken,
  currentSession,
  endUserSessions,
  type Session,
  startSession,
  verifyCsrf,
} from '../http/sessions.ts';
import type { ThrottleRule } from '../http/throttle.ts';
import { isFormRequest } from '../oauth/form-body.ts';
import { revokeAllGrantsOfUser } from '../oauth/grants/grants.ts';
import { inTransaction } from '../store/database.ts';
import { slowDownPage } from './error-page.ts';
import { sendPage } from './layout.ts';
import { notice } from './shared/page-kit.ts';

// Attempts per client address and per invitation within 15 minutes (tokens are 256-bit: this
// bounds the cost of scripted posting and guessing, not the odds, which are nil anyway).
const ADDRESS_LIMIT = 30;
const INVITATION_LIMIT = 10;
const WINDOW_SECONDS = 15 * 60;

const ROLE_WORDS = (roles: readonly string[]) => roles.join(', ');

type Found = InvitationByToken;

function page(c: Context, status: number, title: string, body: ReturnType<typeof html>) {
  return sendPage(c, status, title, body, { formAction: ["'self'"] });
}

const WAYS_OUT = html`<p>Ask the person who invited you to send a new invitation. If you already joined, <a href="/login">sign in</a>.</p>`;

function gonePage(c: Context, status: 404 | 410, reason: string) {
  const title = status === 404 ? 'Invitation not found' : 'Invitation no longer valid';
  return page(
    c,
    status,
    title,
    html`<h1>${title}</h1>
${notice('error', reason)}
${WAYS_OUT}`,
  );
}

const NOT_FOUND =
  'This invitation link is not valid. It may have been copied incompletely, or replaced by a newer invitation (only the latest link works).';

function closedReason(found: Found): string | undefined {
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

function newPersonForm(found: Found, action: string, csrf: string, values: { name: string }, error?: string) {
  return html`${heading(found)}
${error ? html`<div class="notice error" role="alert" id="form-error"><p>${error}</p></div>` : ''}
<form method="post" action="${action}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<label for="email">Email</label>
<input id="email" type="email" value="${found.invitation.email}" readonly autocomplete="username">
<label for="name">Your name</label>
<input id="name" name="name" type="text" autocomplete="name" required maxlength="120" value="${values.name}"${error ? html` aria-describedby="form-error"` : ''}>
<label for="password">Choose a password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="password-hint">
<p class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters.</p>
<div class="actions"><button class="primary" type="submit">Join ${found.schoolName}</button></div>
</form>
<p>Already use Lectern with ${found.invitation.email}? <a href="/login?return_to=${encodeURIComponent(action)}">Sign in to accept</a>.</p>`;
}

function acceptForm(found: Found, action: string, csrf: string) {
  return html`${heading(found)}
<p>You are signed in as <strong>${found.invitation.email}</strong>.</p>
<form method="post" action="${action}">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<div class="actions"><button class="primary" type="submit">Accept and join ${found.schoolName}</button></div>
</form>`;
}

function signInFirst(found: Found, here: string) {
  return html`${heading(found)}
<p>This invitation is for <strong>${found.invitation.email}</strong>, which already has a Lectern account.
Sign in with it, then accept the invitation.</p>
<p><a href="/login?return_to=${encodeURIComponent(here)}">Sign in as ${found.invitation.email}</a></p>
<p class="muted">Forgot the password? Use “Forgot password?” on the sign-in page.</p>`;
}

function unproven(found: Found) {
  return html`${heading(found)}
${notice('warning', html`Your account’s email address, <strong>${found.invitation.email}</strong>, is not confirmed yet, and this invitation was not sent to it by email.`)}
<p>Confirm the address by resetting your password (<a href="/password-reset">Forgot password?</a>): the link reaches only the owner of the mailbox. Or ask ${found.schoolName} to send the invitation again once they can email it.</p>`;
}

function wrongAccount(found: Found, signedInAs: string, here: string, csrf: string) {
  return html`${heading(found)}
${notice('warning', html`This invitation is for <strong>${found.invitation.email}</strong>, but you are signed in as <strong>${signedInAs}</strong>.`)}
<p>Sign out, then sign in as ${found.invitation.email} to accept it.</p>
<form method="post" action="/logout">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<input type="hidden" name="return_to" value="${here}">
<div class="actions"><button class="secondary" type="submit">Sign out and use ${found.invitation.email}</button></div>
</form>`;
}

/** The invitation pages, mounted by one line in pages.ts. */
export function createInvitationPagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const addressRule = (c: Context): ThrottleRule => ({
    key: `invitation:ip:${clientAddress(ctx.config, c)}`,
    limit: ADDRESS_LIMIT,
    windowSeconds: WINDOW_SECONDS,
  });
  const tooMany = (c: Context, wait: number) => slowDownPage(c, wait, 'Too many attempts.', WAYS_OUT);

  // The invitation of the path, or the page that explains why there is none to accept.
  async function open(c: Context): Promise<Found | Response> {
    const found = await findInvitationByToken(ctx.db, c.req.param('token') ?? '');
    if (!found) {
      await ctx.throttle.recordFailure([addressRule(c)]);
      return gonePage(c, 404, NOT_FOUND);
    }
    const reason = closedReason(found);
    return reason ? gonePage(c, 410, reason) : found;
  }

  async function signedInUser(c: Context): Promise<(User & { session: Session }) | undefined> {
    const session = await currentSession(ctx, c);
    const user = session ? await findUserById(ctx.db, session.userId) : undefined;
    return session && user ? { ...user, session } : undefined;
  }

  app.get('/invitations/:token', async (c) => {
    const wait = await ctx.throttle.retryAfter([addressRule(c)]);
    if (wait > 0) return tooMany(c, wait);
    const found = await open(c);
    if (found instanceof Response) return found;
    const here = new URL(c.req.url).pathname;
    const viewer = await signedInUser(c);
    if (!viewer) {
      return page(
        c,
        200,
        `Join ${found.schoolName}`,
        newPersonForm(found, here, csrfToken(ctx, c), { name: '' }),
      );
    }
    const csrf = csrfToken(ctx, c, viewer.session);
    if (viewer.email !== found.invitation.email) {
      return page(c, 403, `Join ${found.schoolName}`, wrongAccount(found, viewer.email, here, csrf));
    }
    return page(c, 200, `Join ${found.schoolName}`, acceptForm(found, `${here}/accept`, csrf));
  });

  // Counts the attempt against the address and the invitation, before anything is checked.
  async function reserve(c: Context): Promise<Response | undefined> {
    const rules: ThrottleRule[] = [
      addressRule(c),
      {
        key: `invitation:token:${sha256(c.req.param('token') ?? '')}`,
        limit: INVITATION_LIMIT,
        windowSeconds: WINDOW_SECONDS,
      },
    ];
    const reservation = await ctx.throttle.reserve(rules);
    return reservation.retryAfter > 0 ? tooMany(c, reservation.retryAfter) : undefined;
  }

  async function joined(
    c: Context,
    found: Found,
    done: Acceptance & { endedSessions?: number },
    newPerson: boolean,
  ): Promise<Response> {
    if (done.tookOver) {
      logSecurityEvent(ctx.logger, 'sessions.revoked', {
        userId: done.userId,
        sessions: done.endedSessions ?? 0,
        reason: 'account_taken_over',
        requestId: c.get('requestId'),
      });
    }
    if (newPerson) await startSession(ctx, c, done.userId);
    logSecurityEvent(ctx.logger, 'invitation.accepted', {
      schoolId: done.schoolId,
      userId: done.userId,
      invitationId: done.invitationId,
      roles: done.roles,
      requestId: c.get('requestId'),
    });
    const landing = mayActFor('operator', done.roles)
      ? `/admin/${encodeURIComponent(found.schoolId)}`
      : '/account';
    return c.redirect(landing, 303);
  }

  const refused = (c: Context, err: unknown, found: Found) => {
    if (err instanceof InvitationGoneError) {
      return gonePage(c, 410, 'This invitation was used, withdrawn or replaced a moment ago.');
    }
    if (err instanceof ProblemError && err.code === 'email_taken') {
      return page(c, 409, `Join ${found.schoolName}`, signInFirst(found, new URL(c.req.url).pathname));
    }
    if (err instanceof UnprovenEmailError) return page(c, 403, `Join ${found.schoolName}`, unproven(found));
    throw err;
  };

  app.post('/invitations/:token', async (c) => {
    const throttled = await reserve(c);
    if (throttled) return throttled;
    const found = await open(c);
    if (found instanceof Response) return found;
    if (!isFormRequest(c)) {
      const body = html`<h1>Unsupported form</h1>${notice('error', 'This form must be sent as a web form.')}`;
      return page(c, 415, 'Unsupported form', body);
    }
    const form = new URLSearchParams(await c.req.text());
    const name = (form.get('name') ?? '').slice(0, 1000);
    const password = form.get('password') ?? '';
    const here = new URL(c.req.url).pathname;
    const again = (status: number, error: string) =>
      page(
        c,
        status,
        `Join ${found.schoolName}`,
        newPersonForm(found, here, csrfToken(ctx, c), { name }, error),
      );
    if (!verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined)) {
      return again(403, 'This form has expired. Please fill it in again.');
    }
    const checkedName = Text(120).safeParse(name);
    if (!checkedName.success) return again(422, 'Enter your name (at most 120 characters).');
    const weak = passwordProblem(password);
    if (weak) return again(422, `The password ${weak}.`);
    try {
      const passwordHash = await hashPassword(password);
      const done = await inTransaction(ctx.db, async (tx) => {
        const accepted = await acceptAsNewPerson(tx, c.req.param('token'), {
          email: found.invitation.email,
          name: checkedName.data,
          passwordHash,
        });
        if (!accepted.tookOver) return accepted;
        // The mailbox's owner took the account over: nobody else's grant or session outlives
        // that, in the same transaction as the new password.
        await revokeAllGrantsOfUser(tx, accepted.userId);
        return { ...accepted, endedSessions: await endUserSessions({ db: tx }, accepted.userId) };
      });
      return await joined(c, found, done, true);
    } catch (err) {
      return refused(c, err, found);
    }
  });

  app.post('/invitations/:token/accept', async (c) => {
    const throttled = await reserve(c);
    if (throttled) return throttled;
    const found = await open(c);
    if (found instanceof Response) return found;
    const here = `/invitations/${c.req.param('token')}`;
    const viewer = await signedInUser(c);
    if (!viewer) return c.redirect(`/login?return_to=${encodeURIComponent(here)}`, 303);
    const form = isFormRequest(c) ? new URLSearchParams(await c.req.text()) : new URLSearchParams();
    if (!verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined, viewer.session)) {
      return page(
        c,
        403,
        'Form expired',
        html`<h1>Form expired</h1>${notice('error', 'This form has expired. Go back, reload the page and try again.')}`,
      );
    }
    if (viewer.email !== found.invitation.email) {
      const csrf = csrfToken(ctx, c, viewer.session);
      return page(c, 403, `Join ${found.schoolName}`, wrongAccount(found, viewer.email, here, csrf));
    }
    try {
      return await joined(c, found, await acceptInvitation(ctx.db, c.req.param('token'), viewer), false);
    } catch (err) {
      return refused(c, err, found);
    }
  });

  return app;
}
