import type { Context } from 'hono';
import type { IssuedTokens } from '../grants/tokens.ts';
import { formatScopes } from '../scopes.ts';

/** RFC 6749 §5.1 successful token response; never cached. */
export function tokenResponse(c: Context, tokens: IssuedTokens, idToken?: string): Response {
  const body: Record<string, unknown> = {
    access_token: tokens.accessToken,
    token_type: 'Bearer',
    expires_in: tokens.expiresIn,
    refresh_token: tokens.refreshToken,
    scope: formatScopes(tokens.scopes),
  };
  if (idToken) body.id_token = idToken;
  return c.json(body, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
}
