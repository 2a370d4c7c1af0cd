import { SignJWT } from 'jose';
import { getSigningKey, ID_TOKEN_LIFETIME_SECONDS } from '../../crypto/signing-keys.ts';
import type { AppContext } from '../../http/context.ts';
import { nowMs } from '../../store/time.ts';
import { identityClaims } from './claims.ts';

/** What an id_token is issued for: one authorization_code exchange that granted `openid`. */
export interface IdTokenInput {
  readonly clientId: string;
  readonly userId: string;
  readonly schoolId: string;
  readonly scopes: readonly string[];
  readonly nonce: string | null;
  /** ISO 8601 time of the sign-in (OIDC Core §2 auth_time). */
  readonly authTime: string;
  /** The user's roles at the school when the caller already read them. */
  readonly roles?: readonly string[];
}

/**
 * Signs an id_token (OIDC Core §2, spec §5.5): ES256 with the `kid` published at jwks_uri,
 * `iss` = BASE_URL, `aud` = the client, 10 minutes, the nonce echoed, and the same identity
 * claims as UserInfo.
 */
export async function signIdToken(
  ctx: AppContext,
  input: IdTokenInput,
  now: number = nowMs(),
): Promise<string> {
  const key = await getSigningKey(ctx);
  const claims = await identityClaims(ctx, input.userId, input.schoolId, input.scopes, input.roles);
  const iat = Math.floor(now / 1000);
  const payload: Record<string, unknown> = {
    ...claims,
    auth_time: Math.floor(Date.parse(input.authTime) / 1000),
    azp: input.clientId,
  };
  if (input.nonce) payload.nonce = input.nonce;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
    .setIssuer(ctx.config.baseUrl)
    .setSubject(input.userId)
    .setAudience(input.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ID_TOKEN_LIFETIME_SECONDS)
    .sign(key.privateKey);
}
