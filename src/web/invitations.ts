/**
 * `/invitations/<token>`: the page a person reaches from an invitation, one sub-app mounted at
 * `/invitations`. It looks the same whether or not the email has an account (without SMTP the
 * inviter holds the link): a new person sets a name and password and is signed in with the role;
 * an existing account signs in as the invited email and presses Accept. Unknown, used, revoked
 * and expired links get a page that says so (404 / 410), never a 5xx; the POSTs are throttled
 * per address and per invitation. The area's middleware does all of that before any handler:
 * the throttle, the invitation (`c.var.invitation`), who is signed in (`c.var.person`) and every
 * POST's CSRF token (`c.var.form`).
 */
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { hashPassword, passwordProblem } from '../crypto/passwords.ts';
import { sha256 } from '../crypto/tokens.ts';
import { findInvitationByToken } from '../domain/school/invitations.ts';
import { type Joining, joinAsNewPerson, joinSignedIn } from '../domain/school/joining.ts';
import { checkPersonName } from '../domain/school/person-name.ts';
import { mayActFor } from '../domain/school/standing.ts';
import { findUserById, type User } from '../domain/school/users.ts';
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
import { tooManyAttempts } from './error-page.ts';
import {
  acceptForm,
  closedReason,
  type Found,
  NOT_FOUND,
  newPersonForm,
  page,
  refusalPage,
  signInFirst,
  unproven,
  wrongAccount,
} from './invitation-views.ts';
import { personNameWords } from './shared/person-name.ts';
import { PageRefusal, refusals } from './shared/refusal.ts';
import { pageRefusalHandler } from './shared/viewer.ts';

// Attempts per client address and per invitation within 15 minutes (tokens are 256-bit: this
// bounds the cost of scripted posting and guessing, not the odds, which are nil anyway).
const ADDRESS_LIMIT = 30;
const INVITATION_LIMIT = 10;
const WINDOW_SECONDS = 15 * 60;

/** Who is signed in, if anyone. */
type Person = User & { session: Session };

interface InvitationEnv {
  Variables: AppEnv['Variables'] & {
    /** The open invitation the path's token names. */
    invitation: Found;
    /** Who is signed in, if anyone. */
    person: Person | undefined;
    /** A POST's fields, its CSRF token checked; empty on other methods. */
    form: URLSearchParams;
  };
}
type InvitationContext = Context<InvitationEnv>;

const here = (c: Context) => `/invitations/${c.req.param('token') ?? ''}`;

function addressRule(ctx: AppContext, c: Context): ThrottleRule {
  return {
    key: `invitation:ip:${clientAddress(ctx.config, c)}`,
    limit: ADDRESS_LIMIT,
    windowSeconds: WINDOW_SECONDS,
  };
}

/** Counts the attempt (a POST, against the address and the invitation) or checks the address's wait. */
async function throttle(ctx: AppContext, c: Context): Promise<void> {
  if (c.req.method !== 'POST') {
    const wait = await ctx.throttle.retryAfter([addressRule(ctx, c)]);
    if (wait > 0) throw tooManyAttempts(wait, 'Too many attempts.');
    return;
  }
  const reservation = await ctx.throttle.reserve([
    addressRule(ctx, c),
    {
      key: `invitation:token:${sha256(c.req.param('token') ?? '')}`,
      limit: INVITATION_LIMIT,
      windowSeconds: WINDOW_SECONDS,
    },
  ]);
  if (reservation.retryAfter > 0) throw tooManyAttempts(reservation.retryAfter, 'Too many attempts.');
}

/** The open invitation of the path, or the refusal that says why there is none to accept. */
async function openInvitation(ctx: AppContext, c: Context): Promise<Found> {
  const found = await findInvitationByToken(ctx.db, c.req.param('token') ?? '');
  if (!found) {
    await ctx.throttle.recordFailure([addressRule(ctx, c)]);
    throw new PageRefusal(404, 'Invitation not found', NOT_FOUND);
  }
  const reason = closedReason(found);
  if (reason) throw new PageRefusal(410, 'Invitation no longer valid', reason);
  return found;
}

async function signedInPerson(ctx: AppContext, c: Context): Promise<Person | undefined> {
  const session = await currentSession(ctx, c);
  const user = session ? await findUserById(ctx.db, session.userId) : undefined;
  return session && user ? { ...user, session } : undefined;
}

/**
 * A POST's form: its token is the browser's anonymous one (the new person's form) or its
 * session's (Accept); either binds the form to this browser (OWASP CSRF cheat sheet).
 */
async function postedForm(ctx: AppContext, c: Context, person: Person | undefined): Promise<URLSearchParams> {
  if (!isFormRequest(c)) throw refusals.unsupportedForm();
  const form = new URLSearchParams(await c.req.text());
  const token = form.get(CSRF_FIELD) ?? undefined;
  const ok = verifyCsrf(ctx, c, token) || (person !== undefined && verifyCsrf(ctx, c, token, person.session));
  if (!ok) throw refusals.formExpired();
  return form;
}

/** The area's middleware: throttle, invitation, person, then the POST's CSRF-checked form. */
function invitationGuard(ctx: AppContext): MiddlewareHandler<InvitationEnv> {
  return async (c, next) => {
    await throttle(ctx, c);
    c.set('invitation', await openInvitation(ctx, c));
    const person = await signedInPerson(ctx, c);
    c.set('person', person);
    c.set('form', c.req.method === 'POST' ? await postedForm(ctx, c, person) : new URLSearchParams());
    await next();
  };
}

/** GET `/invitations/<token>`: the new person's form, Accept, or whose invitation it is. */
function showInvitation(ctx: AppContext) {
  return (c: InvitationContext) => {
    const { invitation: found, person } = c.var;
    const title = `Join ${found.schoolName}`;
    if (!person) return page(c, 200, title, newPersonForm(found, here(c), csrfToken(ctx, c), { name: '' }));
    const csrf = csrfToken(ctx, c, person.session);
    if (person.email !== found.invitation.email) {
      return page(c, 403, title, wrongAccount(found, person.email, here(c), csrf));
    }
    return page(c, 200, title, acceptForm(found, `${here(c)}/accept`, csrf));
  };
}

/** The answer to a join: where the person lands, or the page that says why not. */
async function joined(
  ctx: AppContext,
  c: InvitationContext,
  done: Joining,
  newPerson: boolean,
): Promise<Response> {
  const found = c.var.invitation;
  if (!done.ok) {
    if (done.reason === 'gone') {
      throw new PageRefusal(
        410,
        'Invitation no longer valid',
        'This invitation was used, withdrawn or replaced a moment ago.',
      );
    }
    const body = done.reason === 'email_taken' ? signInFirst(found, here(c)) : unproven(found);
    return page(c, done.reason === 'email_taken' ? 409 : 403, `Join ${found.schoolName}`, body);
  }
  const { acceptance } = done;
  const requestId = c.get('requestId');
  if (acceptance.tookOver) {
    logSecurityEvent(ctx.logger, 'sessions.revoked', {
      userId: acceptance.userId,
      sessions: done.endedSessions,
      reason: 'account_taken_over',
      requestId,
    });
  }
  if (newPerson) await startSession(ctx, c, acceptance.userId);
  logSecurityEvent(ctx.logger, 'invitation.accepted', {
    schoolId: acceptance.schoolId,
    userId: acceptance.userId,
    invitationId: acceptance.invitationId,
    roles: acceptance.roles,
    requestId,
  });
  const landing = mayActFor('operator', acceptance.roles)
    ? `/admin/${encodeURIComponent(found.schoolId)}`
    : '/account';
  return c.redirect(landing, 303);
}

/** POST `/invitations/<token>`: a new person joins with a name and a password. */
function joinNew(ctx: AppContext) {
  return async (c: InvitationContext) => {
    const { invitation: found, form } = c.var;
    const name = (form.get('name') ?? '').slice(0, 1000);
    const password = form.get('password') ?? '';
    const again = (error: string) =>
      page(
        c,
        422,
        `Join ${found.schoolName}`,
        newPersonForm(found, here(c), csrfToken(ctx, c), { name }, error),
      );
    const checked = checkPersonName(name);
    if (!checked.ok) return again(personNameWords(checked.reason));
    const weak = passwordProblem(password);
    if (weak) return again(`The password ${weak}.`);
    const input = {
      email: found.invitation.email,
      name: checked.name,
      passwordHash: await hashPassword(password),
    };
    // The mailbox's owner took the account over: nobody else's grant or session outlives that.
    const done = await joinAsNewPerson(ctx.db, c.req.param('token') ?? '', input, async (tx, userId) => {
      await revokeAllGrantsOfUser(tx, userId);
      return endUserSessions({ db: tx }, userId);
    });
    return joined(ctx, c, done, true);
  };
}

/** POST `/invitations/<token>/accept`: the signed-in invitee accepts. */
function acceptSignedIn(ctx: AppContext) {
  return async (c: InvitationContext) => {
    const { invitation: found, person } = c.var;
    if (!person) return c.redirect(`/login?return_to=${encodeURIComponent(here(c))}`, 303);
    if (person.email !== found.invitation.email) {
      const csrf = csrfToken(ctx, c, person.session);
      return page(c, 403, `Join ${found.schoolName}`, wrongAccount(found, person.email, here(c), csrf));
    }
    return joined(ctx, c, await joinSignedIn(ctx.db, c.req.param('token') ?? '', person), false);
  };
}

/** The invitation pages, mounted at `/invitations`. */
export function createInvitationArea(ctx: AppContext): Hono<InvitationEnv> {
  const app = new Hono<InvitationEnv>();
  app.onError(pageRefusalHandler((c, refusal) => refusalPage(c, refusal, here(c))));
  const guard = invitationGuard(ctx);
  app.use('/:token', guard);
  app.use('/:token/accept', guard);
  app.get('/:token', showInvitation(ctx));
  app.post('/:token', joinNew(ctx));
  app.post('/:token/accept', acceptSignedIn(ctx));
  return app;
}
