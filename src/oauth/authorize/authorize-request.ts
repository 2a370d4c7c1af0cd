import { parseRoles } from '../../domain/school/roles.ts';
import { betaFeatures, findSchoolById } from '../../domain/school/schools.ts';
import { mayActFor } from '../../domain/school/standing.ts';
import { OAuthError } from '../../errors/oauth-error.ts';
import type { AppContext } from '../../http/context.ts';
import { type OAuthClient, redirectUriMatches, resolveClient } from '../clients/clients.ts';
import { type FormParams, firstNulParameter, parseParams } from '../form-body.ts';
import { resolveResource } from '../metadata/resource-param.ts';
import { decideScopes } from '../scope-policy.ts';
import type { Audience } from '../scopes.ts';

/** The parameters of an authorization request that the consent form carries back (spec §4.2). */
export const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
  'nonce',
  'prompt',
  'max_age',
  'org_id',
] as const;

/**
 * Refused before the redirect URI is trusted: shown as a page, never redirected (RFC 6749
 * §4.1.2.1, OAuth 2.1 §7.12 open-redirect defence).
 */
export class AuthorizePageError extends Error {
  override name = 'AuthorizePageError';
  readonly status: number;
  readonly title: string;
  constructor(status: number, title: string, message: string) {
    super(message);
    this.status = status;
    this.title = title;
  }
}

/** An error redirected to the client (RFC 6749 §4.1.2.1) with `state` and `iss` (RFC 9207). */
export class AuthorizeRedirectError extends Error {
  override name = 'AuthorizeRedirectError';
  readonly error: string;
  readonly description: string;
  constructor(error: string, description: string) {
    super(`${error}: ${description}`);
    this.error = error;
    this.description = description;
  }
}

/** A fully validated authorization request. */
export interface AuthorizationRequest {
  readonly client: OAuthClient;
  readonly redirectUri: string;
  readonly state: string;
  readonly audience: Audience;
  readonly scopes: string[];
  readonly resource: string;
  readonly codeChallenge: string;
  readonly nonce: string | null;
  readonly prompt: string | null;
  /** OIDC Core §3.1.2.1 max_age in seconds, or null. */
  readonly maxAge: number | null;
  readonly orgId: string | null;
  /** The raw parameters, for the consent form to post back. */
  readonly raw: URLSearchParams;
}

// RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is always 43 characters.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_PARAM = 1024;

/** Step 1: the client and its redirect URI, or a page error. Nothing is redirected before this. */
export async function resolveClientAndRedirect(
  ctx: AppContext,
  raw: URLSearchParams,
): Promise<{ client: OAuthClient; redirectUri: string }> {
  const nul = firstNulParameter(raw);
  if (nul !== undefined) {
    throw new AuthorizePageError(
      400,
      'Invalid request',
      `The parameter ${nul.slice(0, 50)} contains a NUL character.`,
    );
  }
  for (const name of ['client_id', 'redirect_uri']) {
    if (raw.getAll(name).length > 1) {
      throw new AuthorizePageError(400, 'Invalid request', `The parameter ${name} was given more than once.`);
    }
  }
  const clientId = raw.get('client_id');
  if (!clientId)
    throw new AuthorizePageError(400, 'Invalid request', 'The request names no client (client_id).');
  const client = await resolveClient(ctx, clientId);
  if (!client) {
    throw new AuthorizePageError(
      400,
      'Unknown app',
      'The app that sent you here is not registered with Lectern.',
    );
  }
  const redirectUri = raw.get('redirect_uri');
  // OAuth 2.1 §4.1.1: redirect_uri is required; and it must be registered (RFC 6749 §3.1.2.3).
  if (!redirectUri) {
    throw new AuthorizePageError(400, 'Invalid request', 'The request names no redirect_uri.');
  }
  if (!redirectUriMatches(client, redirectUri)) {
    throw new AuthorizePageError(
      400,
      'Unregistered redirect address',
      `The address this app asked to return to is not registered for ${client.name}, so Lectern will not send you there.`,
    );
  }
  return { client, redirectUri };
}

function single(params: FormParams, name: string): string | undefined {
  const value = params.get(name);
  if (value !== undefined && value.length > MAX_PARAM) {
    throw new AuthorizeRedirectError('invalid_request', `The parameter ${name} is too long.`);
  }
  return value;
}

/** Step 2: every other parameter; errors here are redirected to the (now trusted) redirect URI. */
export async function validateAuthorizeParams(
  ctx: AppContext,
  client: OAuthClient,
  redirectUri: string,
  raw: URLSearchParams,
): Promise<AuthorizationRequest> {
  try {
    // RFC 6749 §3.1: no parameter twice (RFC 8707 §2 lets resource repeat).
    const params = parseParams(raw, ['resource']);
    const state = single(params, 'state');
    const responseType = single(params, 'response_type');
    if (!responseType)
      throw new OAuthError('invalid_request', 'response_type is required and must be "code".');
    if (responseType !== 'code') {
      throw new OAuthError('unsupported_response_type', 'Only response_type=code is supported.');
    }
    // OAuth 2.1 §4.1.1 / RFC 7636 §4.3: PKCE is required, with S256 only (product.md §5).
    const challenge = single(params, 'code_challenge');
    const method = single(params, 'code_challenge_method');
    if (!challenge) throw new OAuthError('invalid_request', 'code_challenge is required (PKCE, S256).');
    if (!method)
      throw new OAuthError('invalid_request', 'code_challenge_method is required and must be S256.');
    if (method !== 'S256') {
      throw new OAuthError('invalid_request', `code_challenge_method ${method} is not supported; use S256.`);
    }
    if (!S256_CHALLENGE.test(challenge)) {
      throw new OAuthError('invalid_request', 'code_challenge must be the 43-character base64url S256 hash.');
    }
    // State protects the client against CSRF; spec §4.2 makes it required.
    if (!state) throw new OAuthError('invalid_request', 'state is required.');
    if (client.kind === 'member') await requireMemberAppsEnabled(ctx, client);
    // RFC 6749 §3.3: an omitted scope gets the client's documented default.
    const { audience, scopes } = decideScopes(client, single(params, 'scope'), ctx.config.baseUrl);
    // Spec §4.2: resource is required in the member case; RFC 8707 §2 invalid_target otherwise.
    const resource = resolveResource(params.all('resource'), ctx.config.baseUrl, audience === 'member');
    const prompt = single(params, 'prompt') ?? null;
    if (
      prompt &&
      !prompt.split(' ').every((p) => ['none', 'login', 'consent', 'select_account'].includes(p))
    ) {
      throw new OAuthError('invalid_request', `Unknown prompt value ${prompt}.`);
    }
    const maxAgeValue = single(params, 'max_age');
    if (maxAgeValue !== undefined && !/^\d{1,9}$/.test(maxAgeValue)) {
      throw new OAuthError('invalid_request', 'max_age must be a whole number of seconds.');
    }
    return {
      client,
      redirectUri,
      state,
      audience,
      scopes,
      resource,
      codeChallenge: challenge,
      nonce: single(params, 'nonce') ?? null,
      prompt,
      maxAge: maxAgeValue === undefined ? null : Number(maxAgeValue),
      orgId: single(params, 'org_id') ?? null,
      raw,
    };
  } catch (err) {
    if (err instanceof OAuthError) throw new AuthorizeRedirectError(err.error, err.description);
    throw err;
  }
}

/**
 * Member apps of a school work only while the school has the MCP connections beta on (spec §5.2).
 * A deployment-wide member client (GraphiQL, schoolId null) is checked per school instead: only
 * schools with the beta on are offered at consent (eligibleSchools), and grant-checks.ts re-checks.
 */
async function requireMemberAppsEnabled(ctx: AppContext, client: OAuthClient): Promise<void> {
  if (client.schoolId === null) return;
  const school = await findSchoolById(ctx.db, client.schoolId);
  if (!school || !betaFeatures(school).includes('mcp_connections')) {
    throw new OAuthError(
      'unauthorized_client',
      'This school has turned off MCP connections, so its member apps cannot be used.',
    );
  }
}

/** A school the user may pick at consent, with their roles there. */
export interface EligibleSchool {
  readonly id: string;
  readonly name: string;
  readonly roles: string[];
}

/**
 * Schools the user can authorize this request for (product.md §2): operator audience → where
 * they are owner or admin; member audience → the member app's own school, with any role, or for a
 * deployment-wide member client every school of theirs with MCP connections on.
 */
export async function eligibleSchools(
  ctx: AppContext,
  userId: string,
  client: OAuthClient,
  audience: Audience,
): Promise<EligibleSchool[]> {
  let query = ctx.db
    .selectFrom('memberships')
    .innerJoin('schools', 'schools.id', 'memberships.school_id')
    .select(['schools.id', 'schools.name', 'schools.beta_features', 'memberships.roles'])
    .where('memberships.user_id', '=', userId)
    .where('memberships.status', '=', 'active');
  if (audience === 'member' && client.schoolId !== null)
    query = query.where('schools.id', '=', client.schoolId);
  let rows = await query.orderBy('schools.name').execute();
  if (audience === 'member' && client.schoolId === null) {
    rows = rows.filter((r) => betaFeatures(r).includes('mcp_connections'));
  }
  return rows
    .map((r) => ({ id: r.id, name: r.name, roles: parseRoles(r.roles) as string[] }))
    .filter((s) => mayActFor(audience, s.roles));
}
