/**
 * Sign-up at a school's site (`/schools/<subdomain>/signup`): name, email and password. The answer
 * is the same page whatever the email ("Check your email", docs/security.md): a new address gets
 * a mail whose link makes the account and its student membership of the school and signs the
 * person in (signup-confirm.ts); no account exists before. An address that has an account gets
 * its owner a mail instead, to sign in or reset the password. Who may sign up is the domain's rule
 * (domain/school/sign-up.ts): the school can close it, and a deployment without SMTP takes none.
 */
import { html } from 'hono/html';
import {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordProblem,
} from '../../crypto/passwords.ts';
import { Email } from '../../domain/kernel/fields.ts';
import { checkPersonName, PERSON_NAME_MAX } from '../../domain/school/person-name.ts';
import { signUpAtSchool } from '../../domain/school/sign-up.ts';
import { clientAddress } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import { CSRF_FIELD, csrfToken } from '../../http/sessions.ts';
import { minutes } from '../error-page.ts';
import type { Html } from '../layout.ts';
import { safeReturnTo } from '../login.ts';
import { sendInBackground } from '../recovery/mails.ts';
import { notice } from '../shared/page-kit.ts';
import { personNameWords } from '../shared/person-name.ts';
import { PageRedirect, PageRefusal } from '../shared/refusal.ts';
import type { SiteContext } from './context.ts';
import { type SiteRequest, sendSitePage, signInHref } from './kit.ts';
import { alreadySignedUpMail, confirmationLink, confirmationMail } from './signup-mails.ts';

// Sign-ups per client address within an hour: enough for a family or a classroom behind one
// address, little for a script.
const ADDRESS_LIMIT = 20;
// Sign-up mails per email address within an hour: a stranger typing someone's address cannot
// flood their mailbox (the page says the same either way).
const MAILS_PER_EMAIL = 3;
const WINDOW_SECONDS = 3600;

interface Values {
  readonly name: string;
  readonly email: string;
}
type Errors = Partial<Record<'name' | 'email' | 'password', string>>;

function field(id: keyof Errors, label: string, input: Html, errors: Errors, hint?: string): Html {
  const error = errors[id];
  return html`<label for="${id}">${label}</label>
${input}
${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''}`;
}

function described(id: keyof Errors, errors: Errors, hint = false): Html {
  const ids = [hint ? `${id}-hint` : '', errors[id] ? `${id}-error` : ''].filter(Boolean);
  return html`${ids.length > 0 ? html` aria-describedby="${ids.join(' ')}"` : ''}${errors[id] ? html` aria-invalid="true"` : ''}`;
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

/** The same page for every address: what was sent, and what to do if nothing arrives. */
function checkYourEmail(req: SiteRequest, email: string, returnTo: string): Html {
  return html`<h1>Check your email</h1>
${notice('success', html`To finish signing up at ${req.site.name}, open the link we sent to <strong>${email}</strong>.`)}
<p>The link works for seven days. Nothing arrived after a few minutes? Look in your spam folder, or sign up again.</p>
<p>Already have an account with this address? <a href="${signInHref(returnTo)}">Sign in</a> instead.</p>`;
}

/** Where to come back to after signing up: a page of this service, else the school's home. */
function backTo(ctx: AppContext, req: SiteRequest, value: string | null | undefined): string {
  return safeReturnTo(value ?? undefined, ctx.config.baseUrl) ?? `${req.base}/`;
}

/** The refusal of a sign-up the domain does not allow (closed, or no mail to confirm with). */
function signUpUnavailable(req: SiteRequest, returnTo: string): PageRefusal | undefined {
  if (req.signUp.ok) return undefined;
  const name = req.site.name;
  const signIn = { href: signInHref(returnTo), label: 'Sign in' };
  return req.signUp.reason === 'closed'
    ? new PageRefusal(
        403,
        'Sign-up is closed',
        `${name} is not taking new sign-ups on its site at the moment. If you already have an account, sign in. To join, ask ${name} for an invitation.`,
        { links: [signIn] },
      )
    : new PageRefusal(
        403,
        'Sign-up is not available',
        `Signing up needs an email to confirm your address, and this site cannot send email. If you already have an account, sign in. To join, ask ${name} for an invitation.`,
        { links: [signIn] },
      );
}

/** `GET …/signup`: the form (a signed-in visitor goes straight back). */
export async function showSignUp(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const returnTo = backTo(ctx, req, c.req.query('return_to'));
  if (req.viewer) throw new PageRedirect(returnTo, 303);
  const unavailable = signUpUnavailable(req, returnTo);
  if (unavailable) throw unavailable;
  const form = signupForm(req, csrfToken(ctx, c), returnTo, { name: '', email: '' });
  return sendSitePage(c, req, 200, 'Sign up', form, { current: 'signup' });
}

/** Counts a sign-up against the client address; too many is a 429 refusal. */
async function throttleSignUps(ctx: AppContext, c: SiteContext): Promise<void> {
  const key = `site-signup:ip:${clientAddress(ctx.config, c)}`;
  const { retryAfter } = await ctx.throttle.reserve([
    { key, limit: ADDRESS_LIMIT, windowSeconds: WINDOW_SECONDS },
  ]);
  if (retryAfter === 0) return;
  throw new PageRefusal(
    429,
    'Too many sign-ups',
    `Too many sign-ups were sent from your network. Try again in ${minutes(retryAfter)}.`,
    { headers: { 'Retry-After': String(retryAfter) } },
  );
}

/** The form's fields checked by the domain's rules: the values, or the errors by the fields. */
function readSignUp(form: URLSearchParams) {
  const values = {
    name: (form.get('name') ?? '').slice(0, 1000),
    email: (form.get('email') ?? '').trim().slice(0, 320),
  };
  const password = form.get('password') ?? '';
  const errors: Errors = {};
  const name = checkPersonName(values.name);
  if (!name.ok) errors.name = personNameWords(name.reason);
  const email = Email.safeParse(values.email);
  if (!email.success || values.email.includes('\u0000'))
    errors.email = 'Enter an email address, like name@example.com.';
  const weak = password.length > MAX_PASSWORD_LENGTH ? 'is too long' : passwordProblem(password);
  if (weak) errors.password = `The password ${weak}.`;
  const valid = name.ok && email.success && !weak && Object.keys(errors).length === 0;
  return {
    values,
    errors,
    account: valid && name.ok ? { name: name.name, email: email.data, password } : undefined,
  };
}

/** `POST …/signup`: the same "Check your email" page for a new address and a taken one. */
export async function submitSignUp(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const form = c.get('form');
  await throttleSignUps(ctx, c);
  const returnTo = backTo(ctx, req, form.get('return_to'));
  const unavailable = signUpUnavailable(req, returnTo);
  if (unavailable) throw unavailable;
  const { values, errors, account } = readSignUp(form);
  if (!account) {
    const again = signupForm(req, csrfToken(ctx, c), returnTo, values, errors);
    return sendSitePage(c, req, 422, 'Sign up', again, { current: 'signup' });
  }
  // Hashed for a taken address too, so the answer takes as long either way.
  const passwordHash = await hashPassword(account.password);
  const outcome = await signUpAtSchool(
    { db: ctx.db, secret: ctx.config.secret, now: ctx.clock.now() },
    req.site.id,
    { ...account, passwordHash },
  );
  const email = outcome.kind === 'pending' ? outcome.email : outcome.user.email;
  const mails = await ctx.throttle.reserve([
    { key: `site-signup:mail:${email}`, limit: MAILS_PER_EMAIL, windowSeconds: WINDOW_SECONDS },
  ]);
  if (mails.retryAfter === 0) {
    const mail =
      outcome.kind === 'pending'
        ? confirmationMail(
            req.site,
            account.name,
            email,
            confirmationLink(ctx, req.site, outcome.token, returnTo),
          )
        : alreadySignedUpMail(ctx, req.site, outcome.user);
    sendInBackground(ctx, outcome.kind === 'pending' ? null : outcome.user.id, mail);
  }
  return sendSitePage(c, req, 200, 'Check your email', checkYourEmail(req, values.email, returnTo), {
    current: 'signup',
  });
}
