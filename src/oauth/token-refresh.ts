import { OAuthError } from '../errors/oauth-error.ts';
import type { AppContext } from '../http/context.ts';
import { inTransaction } from '../store/database.ts';
import { nowMs } from '../store/time.ts';
import type { OAuthClient } from './clients.ts';
import type { FormParams } from './form-body.ts';
import { assertGrantUsable } from './grant-checks.ts';
import { revokeGrant, touchGrant } from './grants.ts';
import { resolveResource } from './resource-param.ts';
import { narrowScopes } from './scope-policy.ts';
import { findToken, type IssuedTokens, issueTokens, markRefreshRotated } from './tokens.ts';

const REUSE =
  'The refresh token was already used; as a precaution every token of this authorization has been revoked.';

/**
 * RFC 6749 §6 with rotation and reuse detection (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2): each
 * refresh token works once; presenting a rotated-out one revokes the whole grant.
 */
export async function refreshTokens(
  ctx: AppContext,
  client: OAuthClient,
  params: FormParams,
): Promise<IssuedTokens> {
  const value = params.get('refresh_token');
  if (!value) throw new OAuthError('invalid_request', 'refresh_token is required.');
  const stored = await findToken(ctx.db, value);
  if (stored?.kind !== 'refresh') throw new OAuthError('invalid_grant', 'The refresh token is invalid.');
  if (stored.clientId !== client.id) {
    throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
  }
  if (stored.rotatedAt) {
    await revokeGrant(ctx.db, stored.grantId);
    throw new OAuthError('invalid_grant', REUSE);
  }
  if (stored.revokedAt || stored.grantRevokedAt) {
    throw new OAuthError('invalid_grant', 'The refresh token has been revoked.');
  }
  if (Date.parse(stored.expiresAt) <= nowMs()) {
    throw new OAuthError('invalid_grant', 'The refresh token has expired.');
  }
  // RFC 6749 §6: the scope may narrow, never widen.
  const scopes = narrowScopes(stored.scopes, params.get('scope'));
  // RFC 8707 §2.2: a repeated resource must name the same resource.
  const resource = resolveResource(params.all('resource'), ctx.config.baseUrl, false);
  if (resource !== stored.resource) {
    throw new OAuthError('invalid_target', 'resource does not match the one this token is bound to.');
  }
  // The grant and the user's standing were read with the token (one statement).
  const { grant } = await assertGrantUsable(ctx, client, stored.grant, stored.standing);

  const tokens = await inTransaction(ctx.db, async (tx) => {
    if (!(await markRefreshRotated(tx, stored.tokenHash))) return undefined;
    // The new refresh token keeps the original scopes (RFC 6749 §6); the access token is narrowed.
    const issued = await issueTokens(tx, grant, scopes, stored.scopes);
    await touchGrant(tx, grant.id);
    return issued;
  });
  if (!tokens) {
    // Lost the race to another use of the same token: that is reuse too.
    await revokeGrant(ctx.db, stored.grantId);
    throw new OAuthError('invalid_grant', REUSE);
  }
  return tokens;
}
