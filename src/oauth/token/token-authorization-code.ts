import { createHash } from 'node:crypto';
import { safeEqual } from '../../crypto/tokens.ts';
import { OAuthError } from '../../errors/oauth-error.ts';
import type { AppContext } from '../../http/context.ts';
import { inTransaction } from '../../store/database.ts';
import { nowMs } from '../../store/time.ts';
import { findCode, markCodeUsed } from '../authorize/codes.ts';
import type { OAuthClient } from '../clients/clients.ts';
import type { FormParams } from '../form-body.ts';
import { assertGrantUsable } from '../grants/grant-checks.ts';
import { revokeGrant, touchGrant } from '../grants/grants.ts';
import { type IssuedTokens, issueTokens } from '../grants/tokens.ts';
import { resolveResource } from '../metadata/resource-param.ts';
import { signIdToken } from './id-token.ts';

// RFC 7636 §4.1: code_verifier = 43*128unreserved.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** A replayed code's revocation, as the security log names it (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3). */
const CODE_REUSE = { by: 'lectern', reason: 'authorization_code_reused' } as const;

/** The outcome of a code exchange: tokens, plus an id_token when `openid` was granted. */
export interface CodeExchange {
  readonly tokens: IssuedTokens;
  readonly idToken?: string;
}

/** RFC 6749 §4.1.3 with RFC 7636 §4.6 and RFC 8707 §2.2, as an ordered list of checks. */
export async function exchangeAuthorizationCode(
  ctx: AppContext,
  client: OAuthClient,
  params: FormParams,
): Promise<CodeExchange> {
  const code = params.get('code');
  const redirectUri = params.get('redirect_uri');
  const verifier = params.get('code_verifier');
  if (!code) throw new OAuthError('invalid_request', 'code is required.');
  if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required.');
  // OAuth 2.1 §4.1.3: PKCE is mandatory for every client.
  if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE).');
  if (!VERIFIER.test(verifier)) {
    throw new OAuthError(
      'invalid_request',
      'code_verifier must be 43-128 unreserved characters (RFC 7636 §4.1).',
    );
  }

  const stored = await findCode(ctx.db, code);
  if (!stored) throw new OAuthError('invalid_grant', 'The authorization code is invalid.');
  // RFC 6749 §4.1.2: a code used twice revokes every token issued from it.
  if (stored.usedAt) {
    await revokeGrant(ctx.db, stored.grantId, CODE_REUSE);
    throw new OAuthError(
      'invalid_grant',
      'The authorization code was already used; the tokens issued for it have been revoked.',
    );
  }
  // RFC 6749 §4.1.3: issued to this client, unexpired, same redirect_uri as at authorization.
  if (stored.clientId !== client.id) {
    throw new OAuthError('invalid_grant', 'The authorization code was issued to another client.');
  }
  if (Date.parse(stored.expiresAt) <= nowMs()) {
    throw new OAuthError('invalid_grant', 'The authorization code has expired.');
  }
  if (redirectUri !== stored.redirectUri) {
    throw new OAuthError(
      'invalid_grant',
      'redirect_uri does not match the one of the authorization request.',
    );
  }
  // RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge.
  const computed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  if (!safeEqual(computed, stored.codeChallenge)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge (PKCE).');
  }
  // The grant and the user's standing were read with the code (one statement).
  const { grant, roles } = await assertGrantUsable(ctx, client, stored.grant, stored.standing);
  // RFC 8707 §2.2 / spec §4.3: the resource repeats the authorize value (member case: required;
  // otherwise an omitted one is the authorize value).
  const resource = resolveResource(
    params.all('resource'),
    ctx.config.baseUrl,
    grant.audience === 'member',
    stored.resource,
  );
  if (resource !== stored.resource) {
    throw new OAuthError('invalid_target', 'resource does not match the one of the authorization request.');
  }

  // Single use, decided by one conditional UPDATE inside the transaction that issues the tokens.
  const tokens = await inTransaction(ctx.db, async (tx) => {
    if (!(await markCodeUsed(tx, stored.codeHash))) return undefined;
    const issued = await issueTokens(tx, grant, stored.scopes, grant.scopes, resource);
    await touchGrant(tx, grant.id);
    return issued;
  });
  if (!tokens) {
    await revokeGrant(ctx.db, stored.grantId, CODE_REUSE);
    throw new OAuthError(
      'invalid_grant',
      'The authorization code was already used; the tokens issued for it have been revoked.',
    );
  }
  // Spec §4.3: an id_token exactly for authorization_code grants with openid.
  const idToken = stored.scopes.includes('openid')
    ? await signIdToken(ctx, {
        clientId: client.id,
        userId: grant.userId,
        schoolId: grant.schoolId,
        scopes: stored.scopes,
        nonce: stored.nonce,
        authTime: stored.authTime,
        roles,
      })
    : undefined;
  return { tokens, idToken };
}
