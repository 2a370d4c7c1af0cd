import { randomToken, sha256 } from '../crypto/tokens.ts';
import type { Db, Tx } from '../store/database.ts';
import { isoIn, isoNow } from '../store/time.ts';
import { formatScopes, parseScopes } from './scopes.ts';

/** Authorization codes live 60 seconds (product.md §5; RFC 6749 §4.1.2 recommends ≤ 10 minutes). */
export const CODE_LIFETIME_SECONDS = 60;

/** An authorization code as stored (the code itself only as its hash). */
export interface AuthorizationCode {
  readonly codeHash: string;
  readonly grantId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly scopes: string[];
  readonly resource: string;
  readonly nonce: string | null;
  readonly authTime: string;
  readonly expiresAt: string;
  readonly usedAt: string | null;
}

/** Issues a single-use code for a grant; returns the code (shown once, stored hashed). */
export async function issueCode(
  db: Db | Tx,
  input: Omit<AuthorizationCode, 'codeHash' | 'expiresAt' | 'usedAt'>,
): Promise<string> {
  const code = randomToken(32);
  await db
    .insertInto('oauth_codes')
    .values({
      code_hash: sha256(code),
      grant_id: input.grantId,
      client_id: input.clientId,
      redirect_uri: input.redirectUri,
      code_challenge: input.codeChallenge,
      scopes: formatScopes(input.scopes),
      resource: input.resource,
      nonce: input.nonce,
      auth_time: input.authTime,
      expires_at: isoIn(CODE_LIFETIME_SECONDS),
      used_at: null,
      created_at: isoNow(),
    })
    .execute();
  return code;
}

/** A code by its value, used or not, or undefined. */
export async function findCode(db: Db | Tx, code: string): Promise<AuthorizationCode | undefined> {
  if (code.length > 512) return undefined;
  const row = await db
    .selectFrom('oauth_codes')
    .selectAll()
    .where('code_hash', '=', sha256(code))
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    codeHash: row.code_hash,
    grantId: row.grant_id,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    scopes: parseScopes(row.scopes),
    resource: row.resource,
    nonce: row.nonce,
    authTime: row.auth_time,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
  };
}

/**
 * Marks a code used if nobody has. The conditional UPDATE is the single point of truth under
 * concurrency on both engines: exactly one caller sees `true` (RFC 6749 §4.1.2 single use).
 */
export async function markCodeUsed(tx: Tx, codeHash: string): Promise<boolean> {
  const result = await tx
    .updateTable('oauth_codes')
    .set({ used_at: isoNow() })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
