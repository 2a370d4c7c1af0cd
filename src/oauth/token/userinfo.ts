import { Hono } from 'hono';
import type { AppContext } from '../../http/context.ts';
import { type ProtectedEnv, requireBearer } from '../../resource/middleware.ts';
import { identityClaims } from './claims.ts';

/**
 * GET and POST /api/oauth/userinfo (OIDC Core §5.3): the bearer token only in the Authorization
 * header (RFC 6750 §2.1; query and body tokens are not read), `openid` required, claims gated
 * by scope exactly as in the id_token. A refusal takes the app handler's default rendering,
 * OAuth JSON with the RFC 6750 challenge (errors/refusal.ts).
 */
export function createUserInfoApp(ctx: AppContext): Hono<ProtectedEnv> {
  const app = new Hono<ProtectedEnv>();
  const guard = requireBearer(ctx, { challengeScopes: ['openid'], need: { scopes: ['openid'] } });
  const handler = async (c: import('hono').Context<ProtectedEnv>) => {
    const p = c.get('principal');
    // The verifier read the roles, email and name with the token: the same values the id_token
    // carries, and UserInfo is one round trip.
    const claims = await identityClaims(ctx, p.userId, p.schoolId, p.scopes, p.roles, p.user);
    return c.json(claims, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  };
  app.get('/api/oauth/userinfo', guard, handler);
  app.post('/api/oauth/userinfo', guard, handler);
  return app;
}
