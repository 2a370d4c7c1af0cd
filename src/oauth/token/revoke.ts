import { Hono } from 'hono';
import { OAuthError } from '../../errors/oauth-error.ts';
import { noteClient } from '../../http/access-log.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { logSecurityEvent } from '../../http/security-log.ts';
import { authenticateClient } from '../clients/client-auth.ts';
import { readOAuthForm } from '../form-body.ts';
import { revokeGrant } from '../grants/grants.ts';
import { findToken, revokeToken } from '../grants/tokens.ts';

/**
 * POST /api/oauth/revoke (RFC 7009). 200 with an empty body whether or not the token was known
 * (§2.2), and a client can only revoke its own tokens. A refresh token takes its whole grant
 * with it (§2.1); an access token stops working on its next use.
 */
export function createRevokeApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/api/oauth/revoke', async (c) => {
    const params = await readOAuthForm(c);
    const client = await authenticateClient(ctx, params, c.req.header('authorization'));
    noteClient(c, client.id);
    const token = params.get('token');
    if (!token) throw new OAuthError('invalid_request', 'token is required.');
    // §2.1: token_type_hint is only a hint; the hash lookup finds either kind.
    const stored = await findToken(ctx.db, token);
    if (stored && stored.clientId === client.id) {
      // A refresh token's revocation is the grant's event, logged with it (events/outbox.ts).
      if (stored.kind === 'refresh') await revokeGrant(ctx.db, stored.grantId, { by: 'client' });
      else {
        await revokeToken(ctx.db, stored.tokenHash);
        logSecurityEvent(ctx.logger, 'token.revoked', {
          clientId: client.id,
          grantId: stored.grantId,
          by: 'client',
          requestId: c.get('requestId'),
        });
      }
    }
    return c.body(null, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  });
  return app;
}
