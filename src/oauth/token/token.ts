import { Hono } from 'hono';
import { OAuthError } from '../../errors/oauth-error.ts';
import { noteClient } from '../../http/access-log.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { authenticateClient } from '../clients/client-auth.ts';
import { readOAuthForm } from '../form-body.ts';
import { exchangeAuthorizationCode } from './token-authorization-code.ts';
import { refreshTokens } from './token-refresh.ts';
import { tokenResponse } from './token-response.ts';

/** POST /api/oauth/token (RFC 6749 §3.2): form body, client authentication, one file per grant. */
export function createTokenApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/api/oauth/token', async (c) => {
    const params = await readOAuthForm(c, ['resource']);
    const grantType = params.get('grant_type');
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
    const client = await authenticateClient(ctx, params, c.req.header('authorization'));
    noteClient(c, client.id);
    switch (grantType) {
      case 'authorization_code': {
        const { tokens, idToken } = await exchangeAuthorizationCode(ctx, client, params);
        return tokenResponse(c, tokens, idToken);
      }
      case 'refresh_token':
        return tokenResponse(c, await refreshTokens(ctx, client, params));
      default:
        throw new OAuthError(
          'unsupported_grant_type',
          `grant_type ${grantType.slice(0, 100)} is not supported; use authorization_code or refresh_token.`,
        );
    }
  });
  return app;
}
