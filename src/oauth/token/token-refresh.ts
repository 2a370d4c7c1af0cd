import { createHmac } from 'node:crypto';
import { open, seal } from '../../crypto/secret-box.ts';
import { OAuthError } from '../../errors/oauth-error.ts';
import type { AppContext } from '../../http/context.ts';
import { inTransaction } from '../../store/database.ts';
import { nowMs } from '../../store/time.ts';
import type { OAuthClient } from '../clients/clients.ts';
import type { FormParams } from '../form-body.ts';
import { assertGrantUsable } from '../grants/grant-checks.ts';
import { latestRotation, recordRotation, revokeGrant } from '../grants/grants.ts';
import {
  findToken,
  type IssuedTokens,
  issueTokens,
  markRefreshRotated,
  type StoredToken,
} from '../grants/tokens.ts';
import { resolveResource } from '../metadata/resource-param.ts';
import { narrowScopes } from '../scope-policy.ts';
import { formatScopes, parseScopes } from '../scopes.ts';

const REUSE =
  'The refresh token was already used; as a precaution every token of this authorization has been revoked.';
const REVOKED = 'The refresh token has been revoked.';

/**
 * RFC 6749 §6 with rotation and reuse detection (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2): a
 * refresh token's first use rotates it out. Presenting the replaced token again within the reuse
 * grace (`refreshReuseGraceSeconds`: an answer lost on the way, or processes of one client
 * refreshing at once) is answered with that rotation's pair again, so a chain never has a second
 * live refresh token. Presenting it after the grace, or a token older than the latest rotation
 * replaced, is reuse and revokes the whole grant.
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
  if (stored.rotatedAt && !withinGrace(ctx, stored)) return reuse(ctx, stored);
  if (stored.revokedAt || stored.grantRevokedAt) throw new OAuthError('invalid_grant', REVOKED);
  if (Date.parse(stored.expiresAt) <= nowMs()) {
    throw new OAuthError('invalid_grant', 'The refresh token has expired.');
  }
  // RFC 6749 §6: the scope may narrow, never widen.
  const scopes = narrowScopes(stored.scopes, params.get('scope'));
  // RFC 8707 §2.2: a repeated resource must name the same resource; omitted, it is the token's.
  const resource = resolveResource(params.all('resource'), ctx.config.baseUrl, false, stored.resource);
  if (resource !== stored.resource) {
    throw new OAuthError('invalid_target', 'resource does not match the one this token is bound to.');
  }
  // The grant and the user's standing were read with the token (one statement).
  const { grant } = await assertGrantUsable(ctx, client, stored.grant, stored.standing);
  // A replay within the grace: checked as a refresh is, answered as the rotation it repeats.
  if (stored.rotatedAt) return answerAgain(ctx, value, stored);

  const tokens = await inTransaction(ctx.db, async (tx) => {
    if (!(await markRefreshRotated(tx, stored.tokenHash))) return undefined;
    // The new refresh token keeps the original scopes (RFC 6749 §6); the access token is narrowed.
    const issued = await issueTokens(tx, grant, scopes, stored.scopes, stored.resource);
    // Replaces the previous rotation's answer; committed with the rotation, so whoever sees this
    // token rotated out also finds the answer.
    await recordRotation(tx, grant.id, stored.tokenHash, sealAnswer(ctx, value, stored, issued));
    return issued;
  });
  if (tokens) return tokens;
  // Another use of the same token rotated it first (the conditional UPDATE waited for it to
  // commit): this caller gets the answer that one got.
  const rotated = await findToken(ctx.db, value);
  if (!rotated?.rotatedAt || rotated.revokedAt || rotated.grantRevokedAt) {
    throw new OAuthError('invalid_grant', REVOKED);
  }
  return answerAgain(ctx, value, rotated);
}

/** Whether a rotated-out token is still within the reuse grace that follows its rotation. */
function withinGrace(ctx: AppContext, token: StoredToken): boolean {
  if (!token.rotatedAt) return false;
  return nowMs() - Date.parse(token.rotatedAt) < ctx.config.refreshReuseGraceSeconds * 1000;
}

/** RFC 9700 §4.14.2: a rotated-out token presented again revokes every token of its grant. */
async function reuse(ctx: AppContext, token: StoredToken): Promise<never> {
  await revokeGrant(ctx.db, token.grantId, { by: 'lectern', reason: 'refresh_token_reused' });
  throw new OAuthError('invalid_grant', REUSE);
}

/**
 * The answer the rotation of `token` gave, given again: the same access and refresh tokens (the
 * access token's `expires_in` counts down). Reuse when the grace is over or when `token` is not
 * the one the grant's latest rotation replaced (only that answer is kept).
 */
async function answerAgain(ctx: AppContext, value: string, token: StoredToken): Promise<IssuedTokens> {
  const kept = withinGrace(ctx, token) ? await latestRotation(ctx.db, token.grantId) : undefined;
  if (kept?.replacedHash !== token.tokenHash) return reuse(ctx, token);
  let answer: SealedAnswer;
  try {
    answer = JSON.parse(open(answerKey(ctx, value), kept.sealedAnswer, boundTo(token)));
  } catch {
    // Sealed under another LECTERN_SECRET: the answer cannot be given again.
    return reuse(ctx, token);
  }
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    expiresIn: Math.max(1, Math.round((answer.access_expires_at - nowMs()) / 1000)),
    scopes: parseScopes(answer.scope),
  };
}

/** A rotation's answer as kept, sealed, on its grant. */
interface SealedAnswer {
  access_token: string;
  refresh_token: string;
  /** The access token's scopes. */
  scope: string;
  /** Epoch milliseconds. */
  access_expires_at: number;
}

function sealAnswer(ctx: AppContext, value: string, token: StoredToken, issued: IssuedTokens): string {
  const answer: SealedAnswer = {
    access_token: issued.accessToken,
    refresh_token: issued.refreshToken,
    scope: formatScopes(issued.scopes),
    access_expires_at: nowMs() + issued.expiresIn * 1000,
  };
  return seal(answerKey(ctx, value), JSON.stringify(answer), boundTo(token));
}

/**
 * The key of one rotation's answer: derived from LECTERN_SECRET and the replaced refresh token
 * itself, which the store holds only as a hash. Only a caller presenting that token can open it;
 * a copy of the database and the secret alone cannot.
 */
function answerKey(ctx: AppContext, value: string): Buffer {
  const purpose = createHmac('sha256', ctx.config.secret).update('lectern refresh answer v1').digest();
  return createHmac('sha256', purpose).update(value).digest();
}

const boundTo = (token: StoredToken) => `refresh-answer:${token.grantId}:${token.tokenHash}`;
