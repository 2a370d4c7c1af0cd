import { OAuthError } from '../../errors/oauth-error.ts';
import type { AppContext } from '../../http/context.ts';
import type { FormParams } from '../form-body.ts';
import { type OAuthClient, resolveClient, verifyClientSecret } from './clients.ts';

/**
 * RFC 6749 §5.2: a client that tried the Authorization header and failed gets 401 with a
 * challenge of the scheme it used; RFC 7617 §2 makes `realm` required and allows `charset`.
 */
const BASIC_CHALLENGE = 'Basic realm="Lectern", charset="UTF-8"';

// RFC 7617 §2: token68 after "Basic"; client ids (2048) and secrets (512) bound the length.
const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;
const MAX_AUTHORIZATION = 4096;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Credentials taken from an `Authorization: Basic` header. */
interface BasicCredentials {
  readonly clientId: string;
  readonly secret: string;
}

const basicFailure = (description: string) =>
  new OAuthError('invalid_client', description, { headers: { 'WWW-Authenticate': BASIC_CHALLENGE } });

function hasControlCharacter(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** application/x-www-form-urlencoded decoding of one part (RFC 6749 Appendix B); undefined if malformed. */
function formDecode(part: string): string | undefined {
  try {
    return decodeURIComponent(part.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/**
 * Check: the Authorization header is `Basic base64(urlencode(id) ":" urlencode(secret))`
 * (RFC 6749 §2.3.1, RFC 7617 §2). Any other scheme or a malformed value is `invalid_client`
 * with the Basic challenge, the one HTTP scheme this server takes from clients.
 */
function parseBasic(authorization: string): BasicCredentials {
  const match = authorization.length <= MAX_AUTHORIZATION ? BASIC.exec(authorization) : null;
  if (!match) {
    throw basicFailure(
      'The Authorization header must be HTTP Basic with the client_id and client_secret (RFC 6749 §2.3.1).',
    );
  }
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(match[1], 'base64'));
  } catch {
    throw basicFailure('The Basic credentials are not UTF-8 text.');
  }
  const colon = decoded.indexOf(':');
  const clientId = colon > 0 ? formDecode(decoded.slice(0, colon)) : undefined;
  const secret = colon > 0 ? formDecode(decoded.slice(colon + 1)) : undefined;
  // No client_id or secret holds a control character (NUL above all: PostgreSQL text refuses it).
  if (!clientId || secret === undefined || hasControlCharacter(clientId + secret)) {
    throw basicFailure(
      'The Basic credentials must be the form-urlencoded client_id, a colon and the client_secret (RFC 6749 §2.3.1).',
    );
  }
  return { clientId, secret };
}

/**
 * Check (RFC 6749 §2.3): one authentication method per request. Basic with a client_secret in
 * the body is two; a body client_id naming another client than the header is a contradiction.
 */
function checkSingleMethod(params: FormParams, basic: BasicCredentials): void {
  if (params.get('client_secret') !== undefined) {
    throw new OAuthError(
      'invalid_request',
      'Use one client authentication method per request: HTTP Basic or client_secret in the body, not both.',
    );
  }
  const bodyId = params.get('client_id');
  if (bodyId !== undefined && bodyId !== basic.clientId) {
    throw new OAuthError('invalid_request', 'The client_id in the body differs from the one in HTTP Basic.');
  }
}

/** Basic: a confidential client proves its secret; a public one only names itself (empty password). */
async function authenticateBasic(
  ctx: AppContext,
  params: FormParams,
  basic: BasicCredentials,
): Promise<OAuthClient> {
  checkSingleMethod(params, basic);
  const client = await resolveClient(ctx, basic.clientId);
  if (!client) throw basicFailure('Unknown client.');
  if (client.authMethod === 'none') {
    // Consoles (Scalar, Swagger UI) send `client_id:` for public clients: that names the client
    // and presents no credential, which is what `none` is. A password is a confused client.
    if (basic.secret !== '') {
      throw basicFailure(
        'This client is public (token_endpoint_auth_method none): send an empty password, or client_id in the body.',
      );
    }
    return client;
  }
  if (!verifyClientSecret(client, basic.secret)) {
    throw basicFailure('Client authentication failed: wrong or missing client_secret.');
  }
  return client;
}

/** client_id (and client_secret) in the form body: `none` and `client_secret_post`. */
async function authenticateBody(ctx: AppContext, params: FormParams): Promise<OAuthClient> {
  const clientId = params.get('client_id');
  if (!clientId) throw new OAuthError('invalid_client', 'client_id is required.');
  const client = await resolveClient(ctx, clientId);
  if (!client) throw new OAuthError('invalid_client', 'Unknown client.');
  const secret = params.get('client_secret');
  if (client.authMethod !== 'none') {
    if (!verifyClientSecret(client, secret)) {
      throw new OAuthError('invalid_client', 'Client authentication failed: wrong or missing client_secret.');
    }
  } else if (secret !== undefined) {
    // A public client holding a "secret" is confused about its registration; say so rather
    // than ignore a credential (RFC 6749 §2.3: the server must know how the client authenticates).
    throw new OAuthError(
      'invalid_client',
      'This client is public (token_endpoint_auth_method none) and must not send client_secret.',
    );
  }
  return client;
}

/**
 * Authenticates the client of a token, revocation or introspection request (RFC 6749 §2.3,
 * §3.2.1): `none` sends only client_id; a confidential client sends its secret by HTTP Basic
 * (`client_secret_basic`, which §2.3.1 says servers must support) or in the body
 * (`client_secret_post`), whichever it registered. Failures are `invalid_client` (401).
 */
export async function authenticateClient(
  ctx: AppContext,
  params: FormParams,
  authorization: string | undefined,
): Promise<OAuthClient> {
  if (authorization) return authenticateBasic(ctx, params, parseBasic(authorization));
  return authenticateBody(ctx, params);
}
