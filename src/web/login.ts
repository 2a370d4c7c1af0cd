import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { html } from 'hono/html';
import { MAX_PASSWORD_LENGTH, verifyPassword } from '../crypto/passwords.ts';
import { listMembershipsOfUser } from '../domain/school/memberships.ts';
import { may, mayActFor, standingRoles } from '../domain/school/standing.ts';
import { findUserByEmail, normalizeEmail } from '../domain/school/users.ts';
import { clientAddress } from '../http/client-address.ts';
import type { AppContext, AppEnv } from '../http/context.ts';
import { loginRules } from '../http/login-throttle.ts';
import { logSecurityEvent } from '../http/security-log.ts';
import {
  CSRF_FIELD,
  csrfToken,
  currentSession,
  endSession,
  type Session,
  startSession,
  verifyCsrf,
} from '../http/sessions.ts';
import { isFormRequest } from '../oauth/form-body.ts';
import { errorPage } from './error-page.ts';
import { sendPage } from './layout.ts';
import { lockoutPage } from './recovery/views.ts';
import { PageRefusal, refusals } from './shared/refusal.ts';
import { pageRefusalHandler } from './shared/viewer.ts';

/**
 * Where a signed-in person lands when no return_to was given (product.md §8): staff (an operator
 * or a lecturer at any school) in the console, which picks the school or shows the picker; a student of exactly
 * one school (and nothing more anywhere) in that school's learning area; others on their account
 * page, which links each school's learning area.
 */
async function landingOf(ctx: AppContext, userId: string): Promise<string> {
  const memberships = await listMembershipsOfUser(ctx.db, userId);
  const staff = (roles: readonly string[]) => mayActFor('operator', roles) || may(roles, 'teach');
  if (memberships.some((m) => staff(standingRoles(m)))) return '/admin';
  const standing = memberships.filter((m) => standingRoles(m).length > 0);
  const onlyStudent = standing.every((m) => standingRoles(m).every((r) => r === 'student'));
  return standing.length === 1 && onlyStudent
    ? `/schools/${encodeURIComponent(standing[0].subdomain)}/learn`
    : '/account';
}

// The limits live with the lock they make (http/login-throttle.ts); tests import them from here.
export { ACCOUNT_FAILURE_LIMIT, IP_FAILURE_LIMIT } from '../http/login-throttle.ts';

// Backslashes and whitespace/control characters let browsers reinterpret a path as a host.
function hasUnsafeCharacter(value: string): boolean {
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (ch === '\\' || code <= 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * A same-origin relative path to continue to after sign-in, or undefined. Absolute URLs,
 * protocol-relative `//host` and backslash tricks are refused (open-redirect defence).
 */
export function safeReturnTo(value: string | undefined, baseUrl: string): string | undefined {
  if (!value || value.length > 4096) return undefined;
  if (!value.startsWith('/') || value.startsWith('//') || hasUnsafeCharacter(value)) return undefined;
  try {
    const base = new URL(baseUrl);
    const url = new URL(value, base);
    if (url.origin !== base.origin) return undefined;
    // The path as the browser will read it: dot segments collapse (`/..//evil.example` is
    // `//evil.example`), so the normalised result is checked again, not only what was sent.
    const path = `${url.pathname}${url.search}`;
    return path.startsWith('//') || path.startsWith('/\\') ? undefined : path;
  } catch {
    return undefined;
  }
}

function loginForm(token: string, returnTo: string | undefined, email: string, error?: string) {
  return html`<h1>Sign in to Lectern</h1>
${error ? html`<div class="notice error" role="alert" id="login-error"><p>${error}</p></div>` : ''}
<form method="post" action="/login" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${token}">
${returnTo ? html`<input type="hidden" name="return_to" value="${returnTo}">` : ''}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${email}"${error ? html` aria-describedby="login-error"` : ''}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>
<p><a href="/password-reset">Forgot password?</a></p>`;
}

/** What the sign-in area's middleware puts on the context of a POST. */
interface SignInEnv {
  Variables: AppEnv['Variables'] & {
    /** The POSTed form, its CSRF token checked (empty on other methods). */
    form: URLSearchParams;
    /** The browser's session, when it has one. */
    session: Session | undefined;
  };
}
type SignInContext = Context<SignInEnv>;

/** The form of a POST to `/login` or `/logout`, or a thrown 415. */
async function postedForm(c: SignInContext): Promise<URLSearchParams> {
  if (!isFormRequest(c)) throw refusals.unsupportedForm();
  const form = new URLSearchParams(await c.req.text());
  c.set('form', form);
  return form;
}

/**
 * `/login`'s middleware: a POST carries the token of the browser's `lectern_csrf` cookie, so
 * nobody signs a browser in to their own account from another site (login CSRF, OWASP CSRF
 * cheat sheet).
 */
function signInForm(ctx: AppContext): MiddlewareHandler<SignInEnv> {
  return async (c, next) => {
    c.set('form', new URLSearchParams());
    if (c.req.method === 'POST') {
      const form = await postedForm(c);
      if (!verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined)) {
        throw new PageRefusal(403, 'Form expired', 'This form has expired. Please sign in again.');
      }
    }
    await next();
  };
}

/**
 * `/logout`'s middleware: a POST carries the session's token; without a session there is
 * nothing to end, so nothing to forge.
 */
function signOutForm(ctx: AppContext): MiddlewareHandler<SignInEnv> {
  return async (c, next) => {
    const session = await currentSession(ctx, c);
    c.set('session', session);
    c.set('form', isFormRequest(c) ? await postedForm(c) : new URLSearchParams());
    if (session && !verifyCsrf(ctx, c, c.var.form.get(CSRF_FIELD) ?? undefined, session)) {
      throw new PageRefusal(403, 'Sign-out failed', 'This form has expired. Reload the page and try again.');
    }
    await next();
  };
}

function showForm(
  ctx: AppContext,
  c: Context,
  status: number,
  returnTo?: string,
  email = '',
  error?: string,
) {
  return sendPage(c, status, 'Sign in', loginForm(csrfToken(ctx, c), returnTo, email, error));
}

/** GET `/login`: the form, or straight on when a session exists and the request allows it. */
function showSignIn(ctx: AppContext) {
  return async (c: SignInContext) => {
    const returnTo = safeReturnTo(c.req.query('return_to'), ctx.config.baseUrl);
    const session = await currentSession(ctx, c);
    // prompt=login: the authorization request wants the password again, session or not.
    if (session && returnTo && c.req.query('prompt') !== 'login') return c.redirect(returnTo, 303);
    return showForm(ctx, c, 200, returnTo);
  };
}

/**
 * The account behind an email and password, or undefined. Passwords beyond 1 KiB are refused
 * without hashing them (argon2 cost is per byte).
 */
async function checkedUser(ctx: AppContext, email: string, password: string) {
  if (password.length > MAX_PASSWORD_LENGTH) return { user: undefined, ok: false };
  const user = await findUserByEmail(ctx.db, email);
  return { user, ok: await verifyPassword(user?.password_hash, password) };
}

/** POST `/login`: the credentials, counted against the account's and the address's limits. */
function signIn(ctx: AppContext) {
  return async (c: SignInContext) => {
    const form = c.var.form;
    const returnTo = safeReturnTo(form.get('return_to') ?? undefined, ctx.config.baseUrl);
    const email = (form.get('email') ?? '').trim().slice(0, 320);
    const password = form.get('password') ?? '';
    if (!email || !password) return showForm(ctx, c, 400, returnTo, email, 'Enter your email and password.');
    // NUL can be in no stored email and PostgreSQL text cannot hold it: refuse before any lookup.
    if (email.includes('\u0000') || password.includes('\u0000')) {
      return showForm(ctx, c, 400, returnTo, '', 'Enter your email and password.');
    }
    const address = clientAddress(ctx.config, c);
    const requestId = c.get('requestId');
    // The attempt is counted before the password is checked, in one atomic step:
    // parallel guesses each take a place, so no more than the limit are ever checked.
    const reservation = await ctx.throttle.reserve(loginRules(normalizeEmail(email), address));
    if (reservation.retryAfter > 0) {
      logSecurityEvent(ctx.logger, 'login.locked', {
        address,
        retryAfterSeconds: reservation.retryAfter,
        requestId,
      });
      return lockoutPage(c, reservation.retryAfter, ctx.mailer.enabled);
    }
    const { user, ok } = await checkedUser(ctx, email, password);
    if (!user || !ok) {
      // The account when the email names one; the email itself is not logged (it may be a typo
      // of a password, or someone else's address). The reservation stays: it is this failure's count.
      logSecurityEvent(ctx.logger, 'login.failed', { userId: user?.id ?? null, address, requestId });
      return showForm(ctx, c, 401, returnTo, email, 'Email or password is incorrect.');
    }
    // A success takes back only its own place; earlier failures stay in their window, so a
    // burst that contains the right password cannot wipe the guesses made with it.
    await reservation.release();
    await startSession(ctx, c, user.id);
    logSecurityEvent(ctx.logger, 'login.succeeded', { userId: user.id, address, requestId });
    return c.redirect(returnTo ?? (await landingOf(ctx, user.id)), 303);
  };
}

/** POST `/logout`: ends the session, then back to sign-in (and to `return_to` after it). */
function signOut(ctx: AppContext) {
  return async (c: SignInContext) => {
    await endSession(ctx, c);
    // "Use another account" on the consent page signs out and comes back to the same request.
    const returnTo = safeReturnTo(c.var.form.get('return_to') ?? undefined, ctx.config.baseUrl);
    return c.redirect(returnTo ? `/login?return_to=${encodeURIComponent(returnTo)}` : '/login', 303);
  };
}

/**
 * `/login` (GET form, POST credentials) and `/logout` (POST), product.md §8: one sub-app whose
 * middleware checks each POST's CSRF token and whose `onError` answers a refused sign-in with the
 * form again, with the reason.
 */
export function createLoginApp(ctx: AppContext): Hono<SignInEnv> {
  const app = new Hono<SignInEnv>();
  app.onError(
    pageRefusalHandler((c, refusal) => {
      if (c.req.path !== '/login') return errorPage(c, refusal.status, refusal.title, refusal.detail);
      const form = c.var.form ?? new URLSearchParams();
      const returnTo = safeReturnTo(form.get('return_to') ?? undefined, ctx.config.baseUrl);
      const email = (form.get('email') ?? '').trim().slice(0, 320);
      return showForm(ctx, c, refusal.status, returnTo, email, refusal.detail);
    }),
  );
  app.use('/login', signInForm(ctx));
  app.get('/login', showSignIn(ctx));
  app.post('/login', signIn(ctx));
  // Only a POST signs out: another method is no route (404), not a refused sign-out.
  app.post('/logout', signOutForm(ctx), signOut(ctx));
  return app;
}
