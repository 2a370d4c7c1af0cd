import { type Context, Hono } from 'hono';
import type { AppContext, AppEnv } from '../http/context.ts';
import { logSecurityEvent } from '../http/security-log.ts';
import { CSRF_FIELD, csrfToken, currentSession, type Session, verifyCsrf } from '../http/sessions.ts';
import { inTransaction } from '../store/database.ts';
import { nowMs } from '../store/time.ts';
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
import { isFormRequest } from './form-body.ts';
import { createGrant, findRememberedGrant } from './grants.ts';
import { isLoopbackRedirectUri } from './redirect-uris.ts';

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
  requestId: string,
): Promise<string> {
  const { grantId, code } = await inTransaction(ctx.db, async (tx) => {
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
  logSecurityEvent(ctx.logger, 'grant.created', {
    schoolId: school.id,
    userId: session.userId,
    clientId: req.client.id,
    grantId,
    scopes: req.scopes,
    requestId,
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
export function consentMayBeRemembered(req: AuthorizationRequest): boolean {
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

/** GET and POST `/oauth/authorize`: RFC 6749 §4.1.1–§4.1.2 with PKCE, RFC 8707 and RFC 9207. */
export function createAuthorizeApp(ctx: AppContext, pages: AuthorizePages): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/oauth/authorize', async (c) => {
    const raw = new URL(c.req.url).searchParams;
    let target: Awaited<ReturnType<typeof resolveClientAndRedirect>>;
    try {
      target = await resolveClientAndRedirect(ctx, raw);
    } catch (err) {
      if (err instanceof AuthorizePageError) return pages.error(c, err.status, err.title, err.message);
      throw err;
    }
    const state = raw.getAll('state').length === 1 ? raw.get('state') : null;
    try {
      const req = await validateAuthorizeParams(ctx, target.client, target.redirectUri, raw);
      const prompts = new Set(req.prompt?.split(' ') ?? []);
      const session = await currentSession(ctx, c);
      const reauthenticate = session !== undefined && mustReauthenticate(req, prompts, session);
      if (!session || reauthenticate) {
        if (prompts.has('none')) {
          throw new AuthorizeRedirectError(
            'login_required',
            session ? 'A fresh sign-in is required.' : 'Nobody is signed in.',
          );
        }
        const back = new URLSearchParams(raw);
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
      const schools = await eligibleSchools(ctx, session.userId, req.client, req.audience);
      if (schools.length === 0) throw new AuthorizeRedirectError('access_denied', noSchoolMessage(req));
      // Remembered consent: an assured client, one identifiable school and a live grant covering it.
      const school =
        schools.find((s) => s.id === req.orgId) ?? (schools.length === 1 ? schools[0] : undefined);
      if (school && !prompts.has('consent') && consentMayBeRemembered(req)) {
        const remembered = await findRememberedGrant(ctx.db, {
          clientId: req.client.id,
          userId: session.userId,
          schoolId: school.id,
          scopes: req.scopes,
          resource: ctx.config.baseUrl,
        });
        if (remembered) {
          const code = await approve(ctx, req, session, school, c.get('requestId'));
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
        returnTo: `${new URL(c.req.url).pathname}?${raw.toString()}`,
      });
    } catch (err) {
      if (err instanceof AuthorizeRedirectError) {
        return redirectToClient(
          c,
          ctx,
          target.redirectUri,
          { error: err.error, error_description: err.description, state },
          302,
        );
      }
      throw err;
    }
  });

  app.post('/oauth/authorize', async (c) => {
    if (!isFormRequest(c)) {
      return pages.error(c, 415, 'Unsupported form', 'The consent form must be sent as a web form.');
    }
    const raw = new URLSearchParams(await c.req.text());
    const submittedCsrf = raw.get(CSRF_FIELD) ?? undefined;
    const decision = raw.get('decision');
    raw.delete(CSRF_FIELD);
    raw.delete('decision');
    let target: Awaited<ReturnType<typeof resolveClientAndRedirect>>;
    try {
      target = await resolveClientAndRedirect(ctx, raw);
    } catch (err) {
      if (err instanceof AuthorizePageError) return pages.error(c, err.status, err.title, err.message);
      throw err;
    }
    const session = await currentSession(ctx, c);
    if (!session) {
      return pages.error(
        c,
        401,
        'Signed out',
        'Your session has ended. Start again from the app you came from.',
      );
    }
    // The decision must come from our own consent page in this browser session.
    if (!verifyCsrf(ctx, c, submittedCsrf, session)) {
      return pages.error(c, 403, 'Form expired', 'This consent form has expired. Start again from the app.');
    }
    const state = raw.getAll('state').length === 1 ? raw.get('state') : null;
    try {
      const req = await validateAuthorizeParams(ctx, target.client, target.redirectUri, raw);
      if (decision === 'deny') {
        throw new AuthorizeRedirectError('access_denied', 'The user denied the request.');
      }
      if (decision !== 'allow') {
        return pages.error(c, 400, 'Invalid request', 'Choose Allow or Deny.');
      }
      const schools = await eligibleSchools(ctx, session.userId, req.client, req.audience);
      if (schools.length === 0) throw new AuthorizeRedirectError('access_denied', noSchoolMessage(req));
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
      const code = await approve(ctx, req, session, school, c.get('requestId'));
      return redirectToClient(c, ctx, req.redirectUri, { code, state: req.state }, 303);
    } catch (err) {
      if (err instanceof AuthorizeRedirectError) {
        return redirectToClient(
          c,
          ctx,
          target.redirectUri,
          { error: err.error, error_description: err.description, state },
          303,
        );
      }
      throw err;
    }
  });

  return app;
}
