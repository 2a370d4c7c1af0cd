/**
 * The link of the sign-up mail (`…/signup/confirm?token=…&return_to=…`): its token is the pending
 * sign-up, sealed and bound to the school (domain/school/sign-up.ts). Opening it changes nothing
 * (mail scanners and link previews open links by themselves): it shows a button whose POST makes
 * the account and, that once, signs the person in. The button's form carries the browser's CSRF
 * token like every form of the site, so nobody else's page can sign a visitor into an account of
 * theirs (login CSRF).
 */
import { html } from 'hono/html';
import { finishSignUp, type PendingSignUp, readPendingSignUp } from '../../domain/school/sign-up.ts';
import { findUserByEmail } from '../../domain/school/users.ts';
import { clientAddress } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import { logSecurityEvent } from '../../http/security-log.ts';
import { CSRF_FIELD, csrfToken, startSession } from '../../http/sessions.ts';
import { minutes } from '../error-page.ts';
import { safeReturnTo } from '../login.ts';
import { notice } from '../shared/page-kit.ts';
import { PageRedirect, PageRefusal } from '../shared/refusal.ts';
import type { SiteContext } from './context.ts';
import { type SiteRequest, sendSitePage, signInHref } from './kit.ts';

/** The pending sign-up of a link's token at this school, or the refusal that says why not. */
function pendingOf(ctx: AppContext, req: SiteRequest, token: string): PendingSignUp {
  const read = readPendingSignUp(ctx.config.secret, ctx.clock.now(), req.site.id, token);
  if (read.ok) return read.pending;
  const again = { links: [{ href: `${req.base}/signup`, label: 'Sign up again' }] };
  throw read.reason === 'expired'
    ? new PageRefusal(
        410,
        'Link expired',
        'This confirmation link has expired (links work for seven days). Sign up again to get a new one.',
        again,
      )
    : new PageRefusal(
        410,
        'Link not valid',
        'This confirmation link is not valid. Open the whole link from the email, or sign up again to get a new one.',
        again,
      );
}

function returnOf(ctx: AppContext, req: SiteRequest, value: string | null | undefined): string {
  return safeReturnTo(value ?? undefined, ctx.config.baseUrl) ?? `${req.base}/`;
}

const alreadyThere = (req: SiteRequest) => new PageRedirect(`${req.base}/signup/confirmed`, 303);

/** The confirmation form: the password chosen at sign-up, and the button. */
function confirmForm(ctx: AppContext, c: SiteContext, pending: PendingSignUp, token: string, error?: string) {
  const req = c.get('site');
  const returnTo = returnOf(
    ctx,
    req,
    c.req.method === 'POST' ? c.get('form').get('return_to') : c.req.query('return_to'),
  );
  const described = error
    ? html` aria-describedby="password-hint password-error" aria-invalid="true"`
    : html` aria-describedby="password-hint"`;
  return html`<h1>Confirm your email address</h1>
<p>Confirm that <strong>${pending.email}</strong> is your email address, and make your account at ${req.site.name}.</p>
${error ? notice('error', 'Please correct the field marked below.') : ''}
<form class="site-form" method="post" action="${req.base}/signup/confirm" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken(ctx, c, req.viewer?.session)}">
<input type="hidden" name="token" value="${token}">
<input type="hidden" name="return_to" value="${returnTo}">
<label for="password">Your password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${described}>
<p class="hint" id="password-hint">The password you chose when signing up.</p>
${error ? html`<p class="field-error" id="password-error">${error}</p>` : ''}
<div class="actions"><button class="primary" type="submit">Confirm my email address</button></div>
</form>`;
}

/** `GET …/signup/confirm`: the form that confirms (or, when the address has an account, that). */
export async function showSignUpConfirmation(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const token = c.req.query('token') ?? '';
  const pending = pendingOf(ctx, req, token);
  if (await findUserByEmail(ctx.db, pending.email)) throw alreadyThere(req);
  return sendSitePage(c, req, 200, 'Confirm your email address', confirmForm(ctx, c, pending, token));
}

/** Counts a confirmation against the client address (each checks a password); too many is a 429. */
async function throttleConfirmations(ctx: AppContext, c: SiteContext): Promise<void> {
  const key = `site-signup-confirm:ip:${clientAddress(ctx.config, c)}`;
  const { retryAfter } = await ctx.throttle.reserve([{ key, limit: 20, windowSeconds: 3600 }]);
  if (retryAfter === 0) return;
  throw new PageRefusal(
    429,
    'Too many tries',
    `Too many tries from your network. Try again in ${minutes(retryAfter)}.`,
    {
      headers: { 'Retry-After': String(retryAfter) },
    },
  );
}

/**
 * `POST …/signup/confirm`: with the password chosen at sign-up, makes the account and its
 * membership, signs the person in and takes them where they were going, once. Pressed again, or
 * when the address got an account otherwise (a newer link, an invitation), it changes nothing and
 * signs nobody in.
 */
export async function confirmSignUp(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const form = c.get('form');
  const token = form.get('token') ?? '';
  const pending = pendingOf(ctx, req, token);
  await throttleConfirmations(ctx, c);
  const finished = await finishSignUp(ctx.db, pending, form.get('password') ?? '');
  if (finished.kind === 'taken') throw alreadyThere(req);
  if (finished.kind === 'wrong_password') {
    const error =
      'This is not the password chosen when signing up. If you did not sign up, ignore the email: no account is made.';
    return sendSitePage(
      c,
      req,
      422,
      'Confirm your email address',
      confirmForm(ctx, c, pending, token, error),
    );
  }
  await startSession(ctx, c, finished.user.id);
  logSecurityEvent(ctx.logger, 'login.succeeded', {
    userId: finished.user.id,
    schoolId: req.site.id,
    address: clientAddress(ctx.config, c),
    requestId: c.get('requestId'),
  });
  return c.redirect(returnOf(ctx, req, form.get('return_to')), 303);
}

/** `GET …/signup/confirmed`: said when the link's address has an account already. */
export async function showSignUpConfirmed(_ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const signIn = signInHref(`${req.base}/`);
  const body = html`<h1>Already signed up</h1>
${notice('warning', html`This address already has an account: <a href="${signIn}">sign in</a>.`)}
<p>Forgot the password? <a href="/password-reset">Reset it</a>. · <a href="${req.base}/courses">See the courses of ${req.site.name}</a></p>`;
  return sendSitePage(c, req, 200, 'Already signed up', body);
}
