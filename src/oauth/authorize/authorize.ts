import { type Context, type ErrorHandler, Hono } from 'hono';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { CSRF_FIELD, csrfToken, currentSession, type Session, verifyCsrf } from '../../http/sessions.ts';
import { inTransaction } from '../../store/database.ts';
import { nowMs } from '../../store/time.ts';
import type { OAuthClient } from '../clients/clients.ts';
import { isLoopbackRedirectUri } from '../clients/redirect-uris.ts';
import { isFormRequest } from '../form-body.ts';
import { createGrant, findRememberedGrant } from '../grants/grants.ts';
import type { AuthorizePages } from './authorize-pages.ts';
import {
  type AuthorizationRequest,
  AuthorizePageError,
  AuthorizeRedirectError,
  type EligibleSchool,
  eligibleSchools,
  resolveClientAndRedirect,
  validateAuthorizeParams,
} from './authorize-request.ts';
import { issueCode } from './codes.ts';

/**
 * Where an error of this request may be sent: known once the client and its redirect URI are
 * (RFC 6749 §4.1.2.1), with the request's `state` when it was given exactly once.
 */
interface ReturnAddress {
  readonly redirectUri: string;
  readonly state: string | null;
}

/** The authorize endpoint's environment: the app's, plus the return address once it is trusted. */
interface AuthorizeEnv extends AppEnv {
  Variables: AppEnv['Variables'] & { returnAddress?: ReturnAddress };
}

/** Sends the browser back to the client with `params`, `iss` (RFC 9207 §2) and no caching. */
function redirectToClient(
  c: Context,
  ctx: AppContext,
  redirectUri: string,
  params: Record<string, string | null | undefined>,
  status: 302 | 303,
): Response {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v) url.searchParams.set(k, v);
  url.searchParams.set('iss', ctx.config.baseUrl);
  return c.body(null, status, { Location: url.toString(), 'Cache-Control': 'no-store', Pragma: 'no-cache' });
}

/** Records consent as a grant and issues its code (both or neither). */
async function approve(
  ctx: AppContext,
  req: AuthorizationRequest,
  session: Session,
  school: EligibleSchool,
): Promise<string> {
  // The grant's `grant.created` event is its security-log line too (events/outbox.ts).
  const { code } = await inTransaction(ctx.db, async (tx) => {
    const grant = await createGrant(tx, {
      clientId: req.client.id,
      userId: session.userId,
      schoolId: school.id,
      audience: req.audience,
      scopes: req.scopes,
      // The grant is the origin's; the code and its tokens record the identifier the client named.
      resource: ctx.config.baseUrl,
      authTime: session.authTime,
    });
    const issued = await issueCode(tx, {
      grantId: grant.id,
      clientId: req.client.id,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge,
      scopes: req.scopes,
      resource: req.resource,
      nonce: req.nonce,
      authTime: session.authTime,
    });
    return { grantId: grant.id, code: issued };
  });
  return code;
}

/**
 * OIDC Core §3.1.2.1: `prompt=login` asks for a fresh sign-in; `max_age` for one no older than
 * that many seconds (`max_age=0` is the same as `prompt=login`).
 */
function mustReauthenticate(
  req: AuthorizationRequest,
  prompts: ReadonlySet<string>,
  session: Session,
): boolean {
  if (prompts.has('login') || req.maxAge === 0) return true;
  if (req.maxAge === null) return false;
  return Math.floor((nowMs() - Date.parse(session.authTime)) / 1000) > req.maxAge;
}

/**
 * RFC 8252 §8.6: a client whose identity cannot be assured must not get an approval silently.
 * Any local program can listen on a loopback port and start a top-level navigation with a known
 * client_id, and anyone can publish an unreviewed metadata document; only clients whose code
 * reaches a fixed HTTPS or custom-scheme redirect may reuse remembered consent (product.md §8).
 */
function consentMayBeRemembered(req: AuthorizationRequest): boolean {
  if (isLoopbackRedirectUri(req.redirectUri)) return false;
  return !(req.client.kind === 'cimd' && !req.client.reviewed);
}

function noSchoolMessage(req: AuthorizationRequest): string {
  if (req.audience === 'operator') {
    return `${req.client.name} acts for school operators, and you are not an owner or admin of any school.`;
  }
  return req.client.schoolId === null
    ? `${req.client.name} works at schools that have MCP connections turned on, and none of your schools has.`
    : `You have no role at the school that runs ${req.client.name}.`;
}

// The endpoint's steps, in the order a request meets them. Each returns what the next needs or
// throws: an AuthorizePageError (a page, never a redirect) or an AuthorizeRedirectError (back to
// the client once its redirect URI is trusted). `authorizeErrors` is the one place that decides.

/** Parse (POST): the consent form, minus the fields that are not the authorization request's. */
async function readConsentForm(c: Context<AuthorizeEnv>) {
  if (!isFormRequest(c)) {
    throw new AuthorizePageError(415, 'Unsupported form', 'The consent form must be sent as a web form.');
  }
  const raw = new URLSearchParams(await c.req.text());
  const csrf = raw.get(CSRF_FIELD) ?? undefined;
  const decision = raw.get('decision');
  raw.delete(CSRF_FIELD);
  raw.delete('decision');
  return { raw, csrf, decision };
}

/**
 * Resolve the client and its redirect URI (a page error until both are known); from here on an
 * error goes back to the client, with the request's state.
 */
async function resolveTarget(
  ctx: AppContext,
  c: Context<AuthorizeEnv>,
  raw: URLSearchParams,
): Promise<{ client: OAuthClient; redirectUri: string }> {
  const target = await resolveClientAndRedirect(ctx, raw);
  const state = raw.getAll('state').length === 1 ? raw.get('state') : null;
  c.set('returnAddress', { redirectUri: target.redirectUri, state });
  return target;
}

/**
 * Check the session (GET): the signed-in person, or the way to the sign-in page when nobody is
 * signed in or the request asks for a fresher sign-in (`prompt=none` cannot be asked).
 */
async function checkSignIn(
  ctx: AppContext,
  c: Context<AuthorizeEnv>,
  req: AuthorizationRequest,
  prompts: ReadonlySet<string>,
): Promise<Session | Response> {
  const session = await currentSession(ctx, c);
  const reauthenticate = session !== undefined && mustReauthenticate(req, prompts, session);
  if (session && !reauthenticate) return session;
  if (prompts.has('none')) {
    throw new AuthorizeRedirectError(
      'login_required',
      session ? 'A fresh sign-in is required.' : 'Nobody is signed in.',
    );
  }
  const back = new URLSearchParams(req.raw);
  // Come back without the demand just satisfied, or the sign-in would be asked for forever.
  if (prompts.has('login')) {
    const rest = [...prompts].filter((p) => p !== 'login');
    if (rest.length > 0) back.set('prompt', rest.join(' '));
    else back.delete('prompt');
  }
  if (req.maxAge === 0) back.delete('max_age');
  const returnTo = `${new URL(c.req.url).pathname}?${back.toString()}`;
  const force = reauthenticate ? '&prompt=login' : '';
  return c.redirect(`/login?return_to=${encodeURIComponent(returnTo)}${force}`, 302);
}

/** Check the session (POST): still signed in, and the form is our own page's in this session. */
async function checkConsentSession(
  ctx: AppContext,
  c: Context<AuthorizeEnv>,
  csrf: string | undefined,
): Promise<Session> {
  const session = await currentSession(ctx, c);
  if (!session) {
    throw new AuthorizePageError(
      401,
      'Signed out',
      'Your session has ended. Start again from the app you came from.',
    );
  }
  if (!verifyCsrf(ctx, c, csrf, session)) {
    throw new AuthorizePageError(
      403,
      'Form expired',
      'This consent form has expired. Start again from the app.',
    );
  }
  return session;
}

/** The schools this person may authorize the request for; none is access_denied. */
async function schoolsFor(ctx: AppContext, session: Session, req: AuthorizationRequest) {
  const schools = await eligibleSchools(ctx, session.userId, req.client, req.audience);
  if (schools.length === 0) throw new AuthorizeRedirectError('access_denied', noSchoolMessage(req));
  return schools;
}

/**
 * Pick school / consent (GET): remembered consent approves at once (an assured client, one
 * identifiable school and a live grant covering it); otherwise the consent page, which
 * `prompt=none` cannot show.
 */
async function rememberedOrConsent(
  ctx: AppContext,
  pages: AuthorizePages,
  c: Context<AuthorizeEnv>,
  req: AuthorizationRequest,
  prompts: ReadonlySet<string>,
  session: Session,
): Promise<Response> {
  const schools = await schoolsFor(ctx, session, req);
  const school = schools.find((s) => s.id === req.orgId) ?? (schools.length === 1 ? schools[0] : undefined);
  if (school && !prompts.has('consent') && consentMayBeRemembered(req)) {
    const remembered = await findRememberedGrant(ctx.db, {
      clientId: req.client.id,
      userId: session.userId,
      schoolId: school.id,
      scopes: req.scopes,
      resource: ctx.config.baseUrl,
    });
    if (remembered) {
      const code = await approve(ctx, req, session, school);
      return redirectToClient(c, ctx, req.redirectUri, { code, state: req.state }, 302);
    }
  }
  if (prompts.has('none')) {
    throw new AuthorizeRedirectError('consent_required', 'The user has not yet approved this request.');
  }
  const user = await ctx.db
    .selectFrom('users')
    .select('email')
    .where('id', '=', session.userId)
    .executeTakeFirst();
  return pages.consent(c, {
    request: req,
    schools,
    csrfToken: csrfToken(ctx, c, session),
    userEmail: user?.email ?? '',
    returnTo: `${new URL(c.req.url).pathname}?${req.raw.toString()}`,
  });
}

/** Pick school (POST): the person's answer, and the school they chose among those eligible. */
async function chosenSchool(
  ctx: AppContext,
  req: AuthorizationRequest,
  session: Session,
  decision: string | null,
): Promise<EligibleSchool> {
  if (decision === 'deny') throw new AuthorizeRedirectError('access_denied', 'The user denied the request.');
  if (decision !== 'allow') throw new AuthorizePageError(400, 'Invalid request', 'Choose Allow or Deny.');
  const schools = await schoolsFor(ctx, session, req);
  const school = req.orgId
    ? schools.find((s) => s.id === req.orgId)
    : schools.length === 1
      ? schools[0]
      : undefined;
  if (!school) {
    throw new AuthorizeRedirectError(
      'access_denied',
      'The chosen school is not one this user can authorize for.',
    );
  }
  return school;
}

/**
 * The one error handler of the endpoint. A page error is shown here; a redirect error goes back
 * to the client with error, state and iss (RFC 6749 §4.1.2.1, RFC 9207) — but only once the
 * client and its redirect URI are known: before that it is shown here too, never redirected
 * (OAuth 2.1 §7.12). Anything else is the app's handler's.
 */
function authorizeErrors(ctx: AppContext, pages: AuthorizePages): ErrorHandler<AuthorizeEnv> {
  return (err, c) => {
    if (err instanceof AuthorizePageError) return pages.error(c, err.status, err.title, err.message);
    if (!(err instanceof AuthorizeRedirectError)) throw err;
    const back = c.get('returnAddress');
    if (!back) return pages.error(c, 400, 'Invalid request', err.description);
    const params = { error: err.error, error_description: err.description, state: back.state };
    // A POST (the consent form) is answered 303, so the browser follows with a GET.
    return redirectToClient(c, ctx, back.redirectUri, params, c.req.method === 'POST' ? 303 : 302);
  };
}

/** GET and POST `/oauth/authorize`: RFC 6749 §4.1.1–§4.1.2 with PKCE, RFC 8707 and RFC 9207. */
export function createAuthorizeApp(ctx: AppContext, pages: AuthorizePages): Hono<AuthorizeEnv> {
  const app = new Hono<AuthorizeEnv>();
  app.onError(authorizeErrors(ctx, pages));

  app.get('/oauth/authorize', async (c) => {
    const raw = new URL(c.req.url).searchParams;
    const target = await resolveTarget(ctx, c, raw);
    const req = await validateAuthorizeParams(ctx, target.client, target.redirectUri, raw);
    const prompts = new Set(req.prompt?.split(' ') ?? []);
    const session = await checkSignIn(ctx, c, req, prompts);
    if (session instanceof Response) return session;
    return rememberedOrConsent(ctx, pages, c, req, prompts, session);
  });

  app.post('/oauth/authorize', async (c) => {
    const { raw, csrf, decision } = await readConsentForm(c);
    const target = await resolveTarget(ctx, c, raw);
    const session = await checkConsentSession(ctx, c, csrf);
    const req = await validateAuthorizeParams(ctx, target.client, target.redirectUri, raw);
    const school = await chosenSchool(ctx, req, session, decision);
    const code = await approve(ctx, req, session, school);
    return redirectToClient(c, ctx, req.redirectUri, { code, state: req.state }, 303);
  });

  return app;
}
