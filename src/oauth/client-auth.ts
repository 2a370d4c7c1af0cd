import { OAuthError } from '../errors/oauth-error.ts';
import type { AppContext } from '../http/context.ts';
import { findClient, type OAuthClient, verifyClientSecret } from './clients.ts';
import type { FormParams } from './form-body.ts';

/**
 * Authenticates the client of a token, revocation or introspection request by its registered
 * method (RFC 6749 §2.3, §3.2.1): `none` sends only client_id, `client_secret_post` also its
 * secret. Anything else is `invalid_client` (401).
 */
export async function authenticateClient(
  ctx: AppContext,
  params: FormParams,
  authorization: string | undefined,
): Promise<OAuthClient> {
  // RFC 6749 §2.3: one method per request; we advertise none and client_secret_post only.
  if (authorization) {
    throw new OAuthError(
      'invalid_client',
      'HTTP authentication is not supported here; send client_id (and client_secret) in the form body.',
    );
  }
  const clientId = params.get('client_id');
  if (!clientId) throw new OAuthError('invalid_client', 'client_id is required.');
  const client = await findClient(ctx, clientId);
  if (!client) throw new OAuthError('invalid_client', 'Unknown client.');
  const secret = params.get('client_secret');
  if (client.authMethod === 'client_secret_post') {
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
