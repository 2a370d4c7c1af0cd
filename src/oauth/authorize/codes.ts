import { randomToken, sha256 } from '../../crypto/tokens.ts';
import type { Db, Tx } from '../../store/database.ts';
import { preparedRead, preparedWrite } from '../../store/prepared.ts';
import { isoIn, isoNow } from '../../store/time.ts';
import { type GrantStanding, JOINED_STANDING_COLUMNS, standingFromJoined } from '../grants/grant-checks.ts';
import { type Grant, grantFromJoined, JOINED_GRANT_COLUMNS } from '../grants/grants.ts';
import { formatScopes, parseScopes } from '../scopes.ts';

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

/** A stored code with its grant, and what its grant's use is re-checked against. */
export interface StoredCode extends AuthorizationCode {
  readonly grant: Grant;
  /** The school's beta features and the user's membership there (grant-checks.ts). */
  readonly standing: GrantStanding;
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

// The code, its grant, the grant's school and the user's membership there: one indexed join,
// compiled once and a named statement on PostgreSQL, so the exchange reads neither the grant nor
// the membership again.
const codeByHash = preparedRead((db, arg) =>
  db
    .selectFrom('oauth_codes as c')
    .innerJoin('oauth_grants as g', 'g.id', 'c.grant_id')
    .leftJoin('schools as s', 's.id', 'g.school_id')
    .leftJoin('memberships as m', (j) =>
      j.onRef('m.school_id', '=', 'g.school_id').onRef('m.user_id', '=', 'g.user_id'),
    )
    .select([
      'c.code_hash',
      'c.grant_id',
      'c.client_id',
      'c.redirect_uri',
      'c.code_challenge',
      'c.scopes',
      'c.resource',
      'c.nonce',
      'c.auth_time',
      'c.expires_at',
      'c.used_at',
      ...JOINED_GRANT_COLUMNS,
      ...JOINED_STANDING_COLUMNS,
    ])
    .where('c.code_hash', '=', arg(0)),
);

/** A code by its value, used or not, with its grant and standing, or undefined. */
export async function findCode(db: Db | Tx, code: string): Promise<StoredCode | undefined> {
  if (code.length > 512) return undefined;
  const row = (await codeByHash(db, sha256(code)))[0];
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
    grant: grantFromJoined(row),
    standing: standingFromJoined(row),
  };
}

/**
 * Marks a code used if nobody has. The conditional UPDATE is the single point of truth under
 * concurrency on both engines: exactly one caller sees `true` (RFC 6749 §4.1.2 single use).
 */
export async function markCodeUsed(tx: Tx, codeHash: string): Promise<boolean> {
  return (await useCode(tx, isoNow(), codeHash)) === 1;
}

const useCode = preparedWrite((db, arg) =>
  db
    .updateTable('oauth_codes')
    .set({ used_at: arg(0) })
    .where('code_hash', '=', arg(1))
    .where('used_at', 'is', null),
);
