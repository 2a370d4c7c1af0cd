import { newId } from '../../crypto/ids.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import { preparedWrite } from '../../store/prepared.ts';
import { isoNow, nowMs } from '../../store/time.ts';
import type { Audience } from '../scopes.ts';
import { formatScopes, parseScopes } from '../scopes.ts';
import type { OAuthGrantsTable } from '../tables.ts';

/**
 * A grant is one approved authorization: a user let a client act for them at one school with
 * some scopes. Its code, access tokens and refresh tokens all hang off it, so revoking it ends
 * every one of them.
 */
export interface Grant {
  readonly id: string;
  readonly clientId: string;
  readonly userId: string;
  readonly schoolId: string;
  readonly audience: Audience;
  readonly scopes: string[];
  readonly resource: string;
  readonly authTime: string;
  readonly revokedAt: string | null;
}

/** Consent is remembered for as long as a refresh token could live. */
const GRANT_REMEMBER_SECONDS = 30 * 24 * 3600;

function toGrant(row: OAuthGrantsTable): Grant {
  return {
    id: row.id,
    clientId: row.client_id,
    userId: row.user_id,
    schoolId: row.school_id,
    audience: row.audience,
    scopes: parseScopes(row.scopes),
    resource: row.resource,
    authTime: row.auth_time,
    revokedAt: row.revoked_at,
  };
}

/**
 * The grant's columns as a read joining `oauth_grants as g` selects them (tokens.ts, codes.ts):
 * the token or code and its grant in one statement instead of two.
 */
export const JOINED_GRANT_COLUMNS = [
  'g.id as g_id',
  'g.client_id as g_client_id',
  'g.user_id as g_user_id',
  'g.school_id as g_school_id',
  'g.audience as g_audience',
  'g.scopes as g_scopes',
  'g.resource as g_resource',
  'g.auth_time as g_auth_time',
  'g.revoked_at as g_revoked_at',
] as const;

/** The grant a joined read's JOINED_GRANT_COLUMNS describe. */
export function grantFromJoined(row: {
  g_id: string;
  g_client_id: string;
  g_user_id: string;
  g_school_id: string;
  g_audience: Audience;
  g_scopes: string;
  g_resource: string;
  g_auth_time: string;
  g_revoked_at: string | null;
}): Grant {
  return {
    id: row.g_id,
    clientId: row.g_client_id,
    userId: row.g_user_id,
    schoolId: row.g_school_id,
    audience: row.g_audience,
    scopes: parseScopes(row.g_scopes),
    resource: row.g_resource,
    authTime: row.g_auth_time,
    revokedAt: row.g_revoked_at,
  };
}

/** Records an approved authorization. */
export async function createGrant(db: Db | Tx, input: Omit<Grant, 'id' | 'revokedAt'>): Promise<Grant> {
  const grant: Grant = { ...input, id: newId('grt'), revokedAt: null };
  await db
    .insertInto('oauth_grants')
    .values({
      id: grant.id,
      client_id: grant.clientId,
      user_id: grant.userId,
      school_id: grant.schoolId,
      audience: grant.audience,
      scopes: formatScopes(grant.scopes),
      resource: grant.resource,
      auth_time: grant.authTime,
      created_at: isoNow(),
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  await recordEvent(
    db,
    grant.schoolId,
    'grant.created',
    grantData(grant.id, grant.clientId, grant.userId, grant.scopes),
  );
  return grant;
}

/** A grant by id (revoked or not), or undefined. */
export async function findGrant(db: Db | Tx, id: string): Promise<Grant | undefined> {
  const row = await db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toGrant(row) : undefined;
}

/**
 * An unrevoked, recently used grant of this client, user and school covering every requested
 * scope for the same resource: consent already given, so the consent page may be skipped.
 */
export async function findRememberedGrant(
  db: Db | Tx,
  query: { clientId: string; userId: string; schoolId: string; scopes: readonly string[]; resource: string },
): Promise<Grant | undefined> {
  const since = isoNow(nowMs() - GRANT_REMEMBER_SECONDS * 1000);
  const rows = await db
    .selectFrom('oauth_grants')
    .selectAll()
    .where('client_id', '=', query.clientId)
    .where('user_id', '=', query.userId)
    .where('school_id', '=', query.schoolId)
    .where('resource', '=', query.resource)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('created_at', '>=', since), eb('last_used_at', '>=', since)]))
    .orderBy('created_at', 'desc')
    .limit(20)
    .execute();
  const want = query.scopes;
  return rows.map(toGrant).find((g) => want.every((s) => g.scopes.includes(s)));
}

/** Marks a grant as used now (shown to users as "last used"). */
export async function touchGrant(db: Db | Tx, id: string): Promise<void> {
  await touch(db, isoNow(), id);
}

// In every refresh and code exchange: compiled once, named on PostgreSQL.
const touch = preparedWrite((db, arg) =>
  db
    .updateTable('oauth_grants')
    .set({ last_used_at: arg(0) })
    .where('id', '=', arg(1)),
);

/**
 * Marks a grant as used now and keeps its latest rotation's answer (sealed by the caller) for
 * the replaced refresh token, overwriting the previous rotation's: one statement, in place of
 * touchGrant, in every refresh.
 */
export async function recordRotation(
  tx: Db | Tx,
  id: string,
  replacedHash: string,
  sealedAnswer: string,
): Promise<void> {
  await rotate(tx, isoNow(), replacedHash, sealedAnswer, id);
}

const rotate = preparedWrite((db, arg) =>
  db
    .updateTable('oauth_grants')
    .set({ last_used_at: arg(0), rotated_refresh_hash: arg(1), rotation_answer: arg(2) })
    .where('id', '=', arg(3)),
);

/** The grant's latest rotation: the refresh token it replaced and its sealed answer. */
export async function latestRotation(
  db: Db | Tx,
  id: string,
): Promise<{ replacedHash: string; sealedAnswer: string } | undefined> {
  const row = await db
    .selectFrom('oauth_grants')
    .select(['rotated_refresh_hash', 'rotation_answer'])
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row?.rotated_refresh_hash || !row.rotation_answer) return undefined;
  return { replacedHash: row.rotated_refresh_hash, sealedAnswer: row.rotation_answer };
}

/**
 * Who revoked a grant, and why when Lectern did: the security log's line of the revocation
 * (`by`, `reason`), never stored.
 */
export interface Revocation {
  readonly by: 'client' | 'member' | 'operator' | 'lectern';
  readonly reason?:
    | 'authorization_code_reused'
    | 'refresh_token_reused'
    | 'password_set'
    | 'member_app_scopes_narrowed'
    | 'member_app_deleted';
}

/**
 * Revokes a grant and every token issued from it, at once (RFC 7009 §2.1: revoking a refresh
 * token should revoke the access tokens of the same grant), and drops its kept rotation answer.
 * Idempotent. `why` goes to the security log's line of the `grant.revoked` event.
 */
export async function revokeGrant(db: Db | Tx, grantId: string, why: Revocation): Promise<void> {
  const now = isoNow();
  const revoked = await db
    .updateTable('oauth_grants')
    .set({ revoked_at: now, rotated_refresh_hash: null, rotation_answer: null })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .returning(['school_id', 'client_id', 'user_id', 'scopes'])
    .executeTakeFirst();
  // Only the call that revoked it tells of it: revoking again is silent (idempotent).
  if (revoked) {
    const data = grantData(grantId, revoked.client_id, revoked.user_id, parseScopes(revoked.scopes));
    await recordEvent(db, revoked.school_id, 'grant.revoked', data, { log: why });
  }
  await db
    .updateTable('oauth_tokens')
    .set({ revoked_at: now })
    .where('grant_id', '=', grantId)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * Revokes every live grant of a person, at every school, with their tokens: a password reset
 * signs the person out of every app too (decisions.md). Returns how many grants.
 */
export async function revokeAllGrantsOfUser(db: Db | Tx, userId: string): Promise<number> {
  const live = await db
    .selectFrom('oauth_grants')
    .select('id')
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
  for (const grant of live) await revokeGrant(db, grant.id, { by: 'lectern', reason: 'password_set' });
  return live.length;
}

function grantData(id: string, clientId: string, userId: string, scopes: readonly string[]) {
  return { grant_id: id, client_id: clientId, user_id: userId, scopes };
}
