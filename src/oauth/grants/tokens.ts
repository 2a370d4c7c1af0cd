import { randomToken, sha256 } from '../../crypto/tokens.ts';
import type { Db, Tx } from '../../store/database.ts';
import { preparedRead, preparedWrite } from '../../store/prepared.ts';
import { isoIn, isoNow, nowMs } from '../../store/time.ts';
import { formatScopes, parseScopes } from '../scopes.ts';
import { type GrantStanding, JOINED_STANDING_COLUMNS, standingFromJoined } from './grant-checks.ts';
import { type Grant, grantFromJoined, JOINED_GRANT_COLUMNS } from './grants.ts';

/** product.md §5: access tokens live 1 hour, refresh tokens 30 days (rotated on every use). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
export const REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 24 * 3600;

type TokenKind = 'access' | 'refresh';

/** The pair handed to a client (the values exist only here; the store keeps hashes). */
export interface IssuedTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly expiresIn: number;
  /** Scopes of the access token. */
  readonly scopes: string[];
}

/** A stored token with its grant, and what its grant's use is re-checked against. */
export interface StoredToken {
  readonly tokenHash: string;
  readonly kind: TokenKind;
  readonly grantId: string;
  readonly clientId: string;
  readonly userId: string;
  readonly schoolId: string;
  readonly scopes: string[];
  readonly resource: string;
  readonly expiresAt: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
  readonly rotatedAt: string | null;
  readonly grantRevokedAt: string | null;
  readonly grant: Grant;
  /** The school's beta features and the user's membership there (grant-checks.ts). */
  readonly standing: GrantStanding;
}

// The pair's one INSERT, compiled once. Arguments: grant, client, user, school,
// resource, created_at, then hash, scopes and expiry of the access token and of the refresh token.
const insertPair = preparedWrite((db, arg) => {
  const common = {
    grant_id: arg(0),
    client_id: arg(1),
    user_id: arg(2),
    school_id: arg(3),
    resource: arg(4),
    created_at: arg(5),
    revoked_at: null,
    rotated_at: null,
  };
  return db.insertInto('oauth_tokens').values([
    { ...common, token_hash: arg(6), kind: 'access', scopes: arg(7), expires_at: arg(8) },
    { ...common, token_hash: arg(9), kind: 'refresh', scopes: arg(10), expires_at: arg(11) },
  ]);
});

/**
 * Issues an access token (256 random bits, RFC 6750 opaque, bound per RFC 8707 to `resource`:
 * the identifier of this origin the client named, the grant's origin by default) and a refresh
 * token. The refresh token keeps the grant's full scopes so a narrowed refresh can later widen
 * back to what was granted (RFC 6749 §6).
 */
export async function issueTokens(
  tx: Db | Tx,
  grant: Grant,
  accessScopes: readonly string[],
  refreshScopes: readonly string[] = grant.scopes,
  resource: string = grant.resource,
): Promise<IssuedTokens> {
  const accessToken = randomToken(32);
  const refreshToken = randomToken(32);
  const now = nowMs();
  await insertPair(
    tx,
    grant.id,
    grant.clientId,
    grant.userId,
    grant.schoolId,
    resource,
    isoNow(now),
    sha256(accessToken),
    formatScopes(accessScopes),
    isoIn(ACCESS_TOKEN_LIFETIME_SECONDS, now),
    sha256(refreshToken),
    formatScopes(refreshScopes),
    isoIn(REFRESH_TOKEN_LIFETIME_SECONDS, now),
  );
  return { accessToken, refreshToken, expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS, scopes: [...accessScopes] };
}

// The token, its grant, the grant's school and the user's membership there: one indexed join,
// compiled once and a named statement on PostgreSQL. Refresh, introspection and revocation read
// it, so none of them reads the grant or the membership again.
const tokenByHash = preparedRead((db, arg) =>
  db
    .selectFrom('oauth_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .leftJoin('schools as s', 's.id', 'g.school_id')
    .leftJoin('memberships as m', (j) =>
      j.onRef('m.school_id', '=', 'g.school_id').onRef('m.user_id', '=', 'g.user_id'),
    )
    .select([
      't.token_hash',
      't.kind',
      't.grant_id',
      't.client_id',
      't.user_id',
      't.school_id',
      't.scopes',
      't.resource',
      't.expires_at',
      't.created_at',
      't.revoked_at',
      't.rotated_at',
      ...JOINED_GRANT_COLUMNS,
      ...JOINED_STANDING_COLUMNS,
    ])
    .where('t.token_hash', '=', arg(0)),
);

/** A token by its value (any state), with its grant and standing, or undefined. */
export async function findToken(db: Db | Tx, token: string): Promise<StoredToken | undefined> {
  if (!token || token.length > 512) return undefined;
  const row = (await tokenByHash(db, sha256(token)))[0];
  if (!row) return undefined;
  return {
    tokenHash: row.token_hash,
    kind: row.kind,
    grantId: row.grant_id,
    clientId: row.client_id,
    userId: row.user_id,
    schoolId: row.school_id,
    scopes: parseScopes(row.scopes),
    resource: row.resource,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    rotatedAt: row.rotated_at,
    grantRevokedAt: row.g_revoked_at,
    grant: grantFromJoined(row),
    standing: standingFromJoined(row),
  };
}

/** True while a token is usable: unexpired, unrevoked, grant unrevoked, not rotated out. */
export function isTokenActive(token: StoredToken, now: number = nowMs()): boolean {
  return (
    token.revokedAt === null &&
    token.grantRevokedAt === null &&
    token.rotatedAt === null &&
    Date.parse(token.expiresAt) > now
  );
}

/**
 * Rotates a refresh token out if it still is the live one. The conditional UPDATE decides among
 * concurrent refreshes: exactly one caller sees `true`.
 */
export async function markRefreshRotated(tx: Tx, tokenHash: string): Promise<boolean> {
  return (await rotateOut(tx, isoNow(), tokenHash)) === 1;
}

const rotateOut = preparedWrite((db, arg) =>
  db
    .updateTable('oauth_tokens')
    .set({ rotated_at: arg(0) })
    .where('token_hash', '=', arg(1))
    .where('kind', '=', 'refresh')
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null),
);

/** Revokes one token (an access token: effective on its next use, on every instance). */
export async function revokeToken(db: Db | Tx, tokenHash: string): Promise<void> {
  await db
    .updateTable('oauth_tokens')
    .set({ revoked_at: isoNow() })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .execute();
}
