/**
 * POST /api/oauth/register: RFC 7591 dynamic registration under the decision order of
 * product.md §3 (which refines spec §5.2). It is not open registration: only loopback clients
 * get a new client_id; vendors get their existing one; everything else is refused.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { randomToken, sha256 } from '../../crypto/tokens.ts';
import { OAuthError } from '../../errors/oauth-error.ts';
import { clientAddress } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import { isoNow, nowMs } from '../../store/time.ts';
import { formatScopes, parseScopes, unknownScopes } from '../scopes.ts';
import { clientFromRow } from './client-row.ts';
import { redirectUriMatches } from './clients.ts';
import { isHttpsRedirectUri, isLoopbackRedirectUri, MAX_REDIRECT_URI_LENGTH } from './redirect-uris.ts';
import { matchVendor } from './vendors.ts';

const MAX_BODY_BYTES = 16_384;
const MAX_REDIRECT_URIS = 10;
/** Registrations per client address are counted in a sliding window of this length. */
const REGISTER_WINDOW_SECONDS = 600;

const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

const requestSchema = z.object({
  // Optional here so a missing list reaches the decision order (a vendor name still matches).
  redirect_uris: z.array(z.string().min(1).max(MAX_REDIRECT_URI_LENGTH)).max(MAX_REDIRECT_URIS).default([]),
  client_name: z.string().max(200).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
  grant_types: z.array(z.string().max(100)).max(10).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  application_type: z.string().max(100).optional(),
  scope: z.string().max(4000).optional(),
});

type RegistrationRequest = z.infer<typeof requestSchema>;

const metadataError = (description: string) => new OAuthError('invalid_client_metadata', description);
const redirectError = (description: string) => new OAuthError('invalid_redirect_uri', description);

/** RFC 7591 §3.1: the body is a JSON object; anything else is refused before any rule runs. */
async function readRequest(c: Context): Promise<RegistrationRequest> {
  const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json')
    throw new OAuthError(
      'invalid_request',
      'The registration request must be sent as Content-Type: application/json.',
    );
  const text = await c.req.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    throw new OAuthError('invalid_request', `The registration request exceeds ${MAX_BODY_BYTES} bytes.`, {
      status: 413,
    });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new OAuthError('invalid_request', 'The request body is not valid JSON.');
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw metadataError('The client metadata must be a JSON object.');
  const parsed = requestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join('.') || 'metadata';
    if (issue.path[0] === 'redirect_uris')
      throw redirectError(
        `redirect_uris must be an array of at most ${MAX_REDIRECT_URIS} URI strings (${field}: ${issue.message}).`,
      );
    throw metadataError(`${field}: ${issue.message}.`);
  }
  return parsed.data;
}

/** Checks shared by every outcome: grant and response types (RFC 7591 §2.1), scope, URI syntax. */
function checkCommon(req: RegistrationRequest): void {
  if (req.grant_types) {
    const bad = req.grant_types.find((g) => !(GRANT_TYPES as readonly string[]).includes(g));
    if (bad)
      throw metadataError(`grant_type ${bad} is not supported; use authorization_code and refresh_token.`);
    if (!req.grant_types.includes('authorization_code'))
      throw metadataError('grant_types must include authorization_code.');
  }
  if (req.response_types?.some((r) => r !== 'code')) throw metadataError('response_types must be ["code"].');
  if (
    req.application_type !== undefined &&
    req.application_type !== 'native' &&
    req.application_type !== 'web'
  )
    throw metadataError('application_type must be native or web.');
  if (req.scope !== undefined) {
    const unknown = unknownScopes(parseScopes(req.scope));
    if (unknown.length) throw metadataError(`Unknown scope: ${unknown.join(' ')}.`);
  }
  for (const uri of req.redirect_uris) {
    // RFC 6749 §3.1.2: absolute, no fragment.
    if (uri.includes('#') || !/^[a-z][a-z0-9+.-]*:[\x21-\x7e]+$/i.test(uri))
      throw redirectError(`${uri} is not an absolute URI without a fragment.`);
  }
}

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
type AuthMethod = (typeof AUTH_METHODS)[number];

/** RFC 7591 §2: the methods the token endpoint takes; both secret methods make a confidential client. */
function authMethodOf(req: RegistrationRequest): AuthMethod {
  const method = req.token_endpoint_auth_method ?? 'none';
  if (!(AUTH_METHODS as readonly string[]).includes(method))
    throw metadataError(
      'token_endpoint_auth_method must be none, client_secret_basic or client_secret_post.',
    );
  return method as AuthMethod;
}

interface Registered {
  body: Record<string, unknown>;
}

/** Rule 1: every redirect URI is loopback → open registration, a new client (RFC 8252 §8.4). */
async function registerLoopback(ctx: AppContext, req: RegistrationRequest): Promise<Registered> {
  const authMethod = authMethodOf(req);
  const now = nowMs();
  const id = newId('lc', now);
  const secret = authMethod === 'none' ? undefined : randomToken(32);
  const metadata = {
    client_name: req.client_name?.trim() || 'Local application',
    redirect_uris: req.redirect_uris,
    grant_types: req.grant_types ?? [...GRANT_TYPES],
    response_types: ['code'],
    token_endpoint_auth_method: authMethod,
    application_type: (req.application_type ?? 'native') as 'native' | 'web',
    ...(req.scope !== undefined ? { scope: formatScopes(parseScopes(req.scope)) } : {}),
  };
  await ctx.db
    .insertInto('oauth_clients')
    .values({
      id,
      kind: 'loopback',
      name: metadata.client_name,
      school_id: null,
      // Either secret method is stored as confidential; metadata keeps the registered name.
      token_endpoint_auth_method: authMethod === 'none' ? 'none' : 'client_secret_post',
      secret_hash: secret ? sha256(secret) : null,
      redirect_uris: JSON.stringify(req.redirect_uris),
      allowed_scopes: null,
      application_type: metadata.application_type,
      metadata: JSON.stringify(metadata),
      reviewed: 0,
      metadata_fetched_at: null,
      metadata_expires_at: null,
      created_by_user_id: null,
      secret_rotated_at: null,
      created_at: isoNow(now),
      updated_at: isoNow(now),
    })
    .execute();
  return {
    body: {
      client_id: id,
      client_id_issued_at: Math.floor(now / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      ...metadata,
    },
  };
}

/** Rule 2: a vendor's name → its existing client_id, if every requested URI is the vendor's. */
async function registerVendor(
  ctx: AppContext,
  req: RegistrationRequest,
  vendorId: string,
): Promise<Registered> {
  const row = await ctx.db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('id', '=', vendorId)
    .executeTakeFirst();
  if (row?.kind !== 'vendor') throw metadataError('This integration is not available.');
  const client = clientFromRow(row);
  const foreign = req.redirect_uris.find((u) => !redirectUriMatches(client, u));
  if (foreign) throw redirectError(`${foreign} is not a registered redirect URI of ${client.name}.`);
  const redirectUris = req.redirect_uris.length > 0 ? req.redirect_uris : client.redirectUris;
  return {
    body: {
      client_id: client.id,
      client_id_issued_at: Math.floor(Date.parse(row.created_at) / 1000),
      client_name: client.name,
      redirect_uris: redirectUris,
      grant_types: [...GRANT_TYPES],
      response_types: ['code'],
      // Vendor clients are public (product.md §3), whatever the request asked for.
      token_endpoint_auth_method: 'none',
      application_type: client.applicationType,
      ...(req.scope !== undefined ? { scope: formatScopes(parseScopes(req.scope)) } : {}),
    },
  };
}

/** The product.md §3 decision order, once. */
async function registerClient(ctx: AppContext, req: RegistrationRequest): Promise<Registered> {
  checkCommon(req);
  const uris = req.redirect_uris;
  if (uris.length > 0 && uris.every(isLoopbackRedirectUri)) return registerLoopback(ctx, req);
  const vendor = req.client_name === undefined ? undefined : matchVendor(ctx.config, req.client_name);
  if (vendor) return registerVendor(ctx, req, vendor.client_id);
  if (uris.some(isHttpsRedirectUri))
    throw redirectError(
      'A fixed HTTPS redirect URI needs a registered integration; use loopback redirect URIs or a Client ID Metadata Document.',
    );
  throw metadataError(
    uris.length === 0
      ? 'client_name matches no known integration; other clients register loopback redirect_uris or use a Client ID Metadata Document.'
      : 'client_name matches no known integration, and the redirect URIs are not loopback addresses.',
  );
}

/**
 * Every registration request counts against its client address (config.registrationRateLimit per
 * window), through the app's one throttle: shared by every instance on the same Redis, and under
 * the same failure policy (fail open while Redis is unreachable). 429 past the limit.
 */
async function rateLimit(ctx: AppContext, address: string): Promise<void> {
  const { retryAfter } = await ctx.throttle.reserve([
    {
      key: `register:ip:${address}`,
      limit: ctx.config.registrationRateLimit,
      windowSeconds: REGISTER_WINDOW_SECONDS,
    },
  ]);
  if (retryAfter > 0) {
    throw new OAuthError('temporarily_unavailable', 'Too many registration requests; try again later.', {
      status: 429,
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}

/** The Hono handler: rate limit, parse, decide, answer 201 (RFC 7591 §3.2.1) with no-store. */
export function registerHandler(ctx: AppContext) {
  return async (c: Context): Promise<Response> => {
    await rateLimit(ctx, clientAddress(ctx.config, c));
    const req = await readRequest(c);
    const { body } = await registerClient(ctx, req);
    return c.body(JSON.stringify(body), 201, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
    });
  };
}
