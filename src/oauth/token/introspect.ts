import { Hono } from 'hono';
import { mayActFor, standingRoles } from '../../domain/school/standing.ts';
import { OAuthError } from '../../errors/oauth-error.ts';
import { noteClient } from '../../http/access-log.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { authenticateClient } from '../clients/client-auth.ts';
import { readOAuthForm } from '../form-body.ts';
import { findToken, isTokenActive } from '../grants/tokens.ts';
import { formatScopes } from '../scopes.ts';

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * POST /api/oauth/introspect (RFC 7662). The caller authenticates as a client and learns only
 * about its own tokens; anything else, or any inactive token, is just `{"active": false}` (§2.2).
 * `aud` is the resource the token is bound to (RFC 8707, spec §2.3).
 */
export function createIntrospectApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/api/oauth/introspect', async (c) => {
    const params = await readOAuthForm(c);
    const client = await authenticateClient(ctx, params, c.req.header('authorization'));
    noteClient(c, client.id);
    const token = params.get('token');
    if (!token) throw new OAuthError('invalid_request', 'token is required.');
    const headers = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
    // The token with its grant and the holder's membership: one statement.
    const stored = await findToken(ctx.db, token);
    // Active only while the holder's standing still allows the grant's audience (standing.ts).
    const standing =
      stored && standingRoles({ roles: stored.standing.m_roles, status: stored.standing.m_status });
    if (
      !stored ||
      stored.clientId !== client.id ||
      !isTokenActive(stored) ||
      !mayActFor(stored.grant.audience, standing ?? [])
    ) {
      return c.json({ active: false }, 200, headers);
    }
    return c.json(
      {
        active: true,
        scope: formatScopes(stored.scopes),
        client_id: stored.clientId,
        sub: stored.userId,
        aud: stored.resource,
        iss: ctx.config.baseUrl,
        org_id: stored.schoolId,
        exp: seconds(stored.expiresAt),
        iat: seconds(stored.createdAt),
        // §2.2 token_type: "Bearer" for access tokens; refresh tokens are no bearer credential
        // at a resource, so they say what they are.
        token_type: stored.kind === 'access' ? 'Bearer' : 'refresh_token',
      },
      200,
      headers,
    );
  });
  return app;
}
