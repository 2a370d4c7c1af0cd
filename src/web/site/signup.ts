/**
 * Sign-up at a school's site (`/schools/<subdomain>/signup`): name, email and password make an
 * account and a student membership of the school, then the person is signed in and goes back to
 * the page they came from. The school can close it (`signup_open`). An email that already has an
 * account is told to sign in (creating the account would be the same answer: docs/security.md).
 * Nothing proves the email at sign-up, so the account is trusted at this school only
 * (`users.unverified_school_id`) until its owner opens the confirmation link sent with SMTP and
 * presses its button, or resets the password.
 */
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordProblem,
} from '../../crypto/passwords.ts';
import type { PublicSite } from '../../domain/catalog/public-catalogue.ts';
import { Email } from '../../domain/kernel/fields.ts';
import { ensureMembership } from '../../domain/school/memberships.ts';
import { checkPersonName, PERSON_NAME_MAX } from '../../domain/school/person-name.ts';
import {
  createUser,
  findUserByEmail,
  findUserById,
  markEmailProven,
  type User,
} from '../../domain/school/users.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import { clientAddress } from '../../http/client-address.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { logSecurityEvent } from '../../http/security-log.ts';
import { CSRF_FIELD, csrfToken, startSession, verifyCsrf } from '../../http/sessions.ts';
import { composeMail } from '../../mail/compose.ts';
import { isFormRequest } from '../../oauth/form-body.ts';
import { inTransaction } from '../../store/database.ts';
import { minutes } from '../error-page.ts';
import type { Html } from '../layout.ts';
import { safeReturnTo } from '../login.ts';
import { sendInBackground } from '../recovery/mails.ts';
import { notice } from '../shared/page-kit.ts';
import { personNameWords } from '../shared/person-name.ts';
import { openSite, type SiteRequest, sendSitePage, signInHref } from './kit.ts';
import { signFor, verifySigned } from './signing.ts';

// Sign-ups per client address within an hour: enough for a family or a classroom behind one
// address, little for a script probing which emails have accounts.
const ADDRESS_LIMIT = 20;
const WINDOW_SECONDS = 3600;
/** How long the email confirmation link works. */
const CONFIRMATION_LIFETIME_SECONDS = 7 * 24 * 3600;

interface Values {
  readonly name: string;
  readonly email: string;
}
type Errors = Partial<Record<'name' | 'email' | 'password', string | Html>>;

function field(
  id: 'name' | 'email' | 'password',
  label: string,
  input: Html,
  errors: Errors,
  hint?: string,
): Html {
  const error = errors[id];
  return html`<label for="${id}">${label}</label>
${input}
${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''}`;
}

function described(id: string, errors: Errors, hint = false): Html {
  const ids = [hint ? `${id}-hint` : '', errors[id as keyof Errors] ? `${id}-error` : ''].filter(Boolean);
  return html`${ids.length > 0 ? html` aria-describedby="${ids.join(' ')}"` : ''}${errors[id as keyof Errors] ? html` aria-invalid="true"` : ''}`;
}

function signupForm(req: SiteRequest, csrf: string, returnTo: string, values: Values, errors: Errors = {}) {
  const { site, base } = req;
  const failed = Object.keys(errors).length > 0;
  return html`<h1>Sign up at ${site.name}</h1>
<p>Make an account to enrol in ${site.name}’s courses. You become a student of ${site.name}.</p>
${failed ? notice('error', 'Please correct the fields marked below.') : ''}
<form class="site-form" method="post" action="${base}/signup" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<input type="hidden" name="return_to" value="${returnTo}">
${field('name', 'Your name', html`<input id="name" name="name" type="text" autocomplete="name" required maxlength="${PERSON_NAME_MAX}" value="${values.name}"${described('name', errors)}>`, errors)}
${field('email', 'Email', html`<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${values.email}"${described('email', errors)}>`, errors)}
${field(
  'password',
  'Choose a password',
  html`<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"${described('password', errors, true)}>`,
  errors,
  `At least ${MIN_PASSWORD_LENGTH} characters.`,
)}
<div class="actions"><button class="primary" type="submit">Create account</button></div>
</form>
<p>Already have an account? <a href="${signInHref(returnTo)}">Sign in</a></p>`;
}

/** The page of a school whose sign-up is closed (also what a non-member gets for enrolling then). */
export function signupClosedPage(c: Context, req: SiteRequest, returnTo: string): Promise<Response> {
  const body = html`<h1>Sign-up is closed</h1>
${notice('warning', `${req.site.name} is not taking new sign-ups on its site at the moment.`)}
<p>If you already have an account, <a href="${signInHref(returnTo)}">sign in</a>. To join, ask ${req.site.name} for an invitation.</p>`;
  return sendSitePage(c, req, 403, 'Sign-up is closed', body, { current: 'signup' });
}

async function confirmationMail(site: PublicSite, user: User, link: string) {
  return composeMail(user.email, site.name, `Confirm your email for ${site.name}`, [
    { text: `Hello ${user.name},` },
    {
      text: `Welcome to ${site.name}. To confirm that this is your email address, open this link within seven days:`,
      link,
    },
    { text: 'If you did not sign up, ignore this email: nobody can use the account at other schools.' },
  ]);
}

/** The sign-up pages of every school's site, mounted by one line in pages.ts. */
export function createSiteSignupApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const base = ctx.config.baseUrl;
  const backTo = (req: SiteRequest, value: string | null | undefined) =>
    safeReturnTo(value ?? undefined, base) ?? `${req.base}/`;

  app.get('/schools/:school/signup', async (c) => {
    const req = await openSite(ctx, c);
    if (req instanceof Response) return req;
    const returnTo = backTo(req, c.req.query('return_to'));
    if (req.viewer) return c.redirect(returnTo, 303);
    if (!req.site.signupOpen) return signupClosedPage(c, req, returnTo);
    const form = signupForm(req, csrfToken(ctx, c), returnTo, { name: '', email: '' });
    return sendSitePage(c, req, 200, 'Sign up', form, { current: 'signup' });
  });

  app.post('/schools/:school/signup', async (c) => {
    const req = await openSite(ctx, c);
    if (req instanceof Response) return req;
    const reservation = await ctx.throttle.reserve([
      {
        key: `site-signup:ip:${clientAddress(ctx.config, c)}`,
        limit: ADDRESS_LIMIT,
        windowSeconds: WINDOW_SECONDS,
      },
    ]);
    if (reservation.retryAfter > 0) {
      const body = html`<h1>Too many sign-ups</h1>
${notice('error', `Too many accounts were made from your network. Try again in ${minutes(reservation.retryAfter)}.`)}`;
      return sendSitePage(c, req, 429, 'Too many sign-ups', body, {
        headers: { 'Retry-After': String(reservation.retryAfter) },
      });
    }
    if (!isFormRequest(c)) {
      const body = html`<h1>Unsupported form</h1>${notice('error', 'This form must be sent as a web form.')}`;
      return sendSitePage(c, req, 415, 'Unsupported form', body);
    }
    const form = new URLSearchParams(await c.req.text());
    const returnTo = backTo(req, form.get('return_to'));
    if (!req.site.signupOpen) return signupClosedPage(c, req, returnTo);
    const values = {
      name: (form.get('name') ?? '').slice(0, 1000),
      email: (form.get('email') ?? '').trim().slice(0, 320),
    };
    const password = form.get('password') ?? '';
    const again = (status: number, errors: Errors, message?: string) =>
      sendSitePage(
        c,
        req,
        status,
        'Sign up',
        html`${message ? notice('error', message) : ''}${signupForm(req, csrfToken(ctx, c), returnTo, values, errors)}`,
        { current: 'signup' },
      );
    if (!verifyCsrf(ctx, c, form.get(CSRF_FIELD) ?? undefined)) {
      return again(403, {}, 'This form has expired. Please fill it in again.');
    }
    const errors: Errors = {};
    const name = checkPersonName(values.name);
    if (!name.ok) errors.name = personNameWords(name.reason);
    const email = Email.safeParse(values.email);
    if (!email.success || values.email.includes('\u0000'))
      errors.email = 'Enter an email address, like name@example.com.';
    const weak = password.length > MAX_PASSWORD_LENGTH ? 'is too long' : passwordProblem(password);
    if (weak) errors.password = `The password ${weak}.`;
    if (!name.ok || !email.success || weak) return again(422, errors);

    const taken = () =>
      again(409, {
        email: html`This email already has an account. <a href="${signInHref(returnTo)}">Sign in</a> with it instead (or use “Forgot password?” on the sign-in page).`,
      });
    if (await findUserByEmail(ctx.db, email.data)) return taken();
    let user: User;
    try {
      const passwordHash = await hashPassword(password);
      user = await inTransaction(ctx.db, async (tx) => {
        const made = await createUser(tx, {
          email: email.data,
          name: name.name,
          passwordHash,
          unverifiedSchoolId: req.site.id,
        });
        await ensureMembership(tx, req.site.id, made.id, ['student']);
        return made;
      });
    } catch (err) {
      if (err instanceof ProblemError && err.code === 'email_taken') return taken();
      throw err;
    }
    await startSession(ctx, c, user.id);
    logSecurityEvent(ctx.logger, 'login.succeeded', {
      userId: user.id,
      schoolId: req.site.id,
      address: clientAddress(ctx.config, c),
      requestId: c.get('requestId'),
    });
    if (ctx.mailer.enabled) {
      const token = signFor(ctx, 'signup-confirm', `${user.id}:${user.email}`, CONFIRMATION_LIFETIME_SECONDS);
      const link = new URL(`${req.base}/signup/confirm`, base);
      link.searchParams.set('user', user.id);
      link.searchParams.set('token', token);
      sendInBackground(ctx, user.id, confirmationMail(req.site, user, link.toString()));
    }
    return c.redirect(returnTo, 303);
  });

  /** The account of a confirmation link's `user` and `token`, when the token is valid for it. */
  const confirming = async (userId: string, token: string): Promise<User | undefined> => {
    const user = /^usr_[0-9a-z]{26}$/.test(userId) ? await findUserById(ctx.db, userId) : undefined;
    return user && verifySigned(ctx, 'signup-confirm', `${user.id}:${user.email}`, token) ? user : undefined;
  };
  const linkNotValid = (c: Context, req: SiteRequest) => {
    const body = html`<h1>Link not valid</h1>
${notice('error', 'This confirmation link is not valid or has expired (links work for seven days).')}
<p>You can still confirm your email address by resetting your password: <a href="/password-reset">Forgot password?</a></p>`;
    return sendSitePage(c, req, 410, 'Link not valid', body);
  };

  // The link of the confirmation email. Opening it changes nothing (mail scanners and link
  // previews open links by themselves): it shows a button whose POST proves the mailbox.
  app.get('/schools/:school/signup/confirm', async (c) => {
    const req = await openSite(ctx, c);
    if (req instanceof Response) return req;
    const token = c.req.query('token') ?? '';
    const user = await confirming(c.req.query('user') ?? '', token);
    if (!user) return linkNotValid(c, req);
    const body = html`<h1>Confirm your email address</h1>
<p>Confirm that <strong>${user.email}</strong> is your email address for your account at ${req.site.name}.</p>
<form class="site-form" method="post" action="${req.base}/signup/confirm">
<input type="hidden" name="user" value="${user.id}">
<input type="hidden" name="token" value="${token}">
<div class="actions"><button class="primary" type="submit">Confirm my email address</button></div>
</form>`;
    return sendSitePage(c, req, 200, 'Confirm your email address', body);
  });

  // The button of that page proves the mailbox (idempotent). It carries no session CSRF token:
  // the person may not be signed in (or signed in as someone else), and the link's signed token
  // is itself the proof. A form posted from another site can only confirm what the holder of the
  // token (who read the email) could confirm anyway.
  app.post('/schools/:school/signup/confirm', async (c) => {
    const req = await openSite(ctx, c);
    if (req instanceof Response) return req;
    const form = isFormRequest(c) ? new URLSearchParams(await c.req.text()) : new URLSearchParams();
    const user = await confirming(form.get('user') ?? '', form.get('token') ?? '');
    if (!user) return linkNotValid(c, req);
    await markEmailProven(ctx.db, user.id);
    return c.redirect(`${req.base}/signup/confirmed`, 303);
  });

  app.get('/schools/:school/signup/confirmed', async (c) => {
    const req = await openSite(ctx, c);
    if (req instanceof Response) return req;
    const body = html`<h1>Email confirmed</h1>
${notice('success', 'Thank you: your email address is confirmed.')}
<p><a href="${req.base}/courses">See the courses of ${req.site.name}</a></p>`;
    return sendSitePage(c, req, 200, 'Email confirmed', body);
  });

  return app;
}
