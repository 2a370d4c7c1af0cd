/**
 * Connected apps: the live grants people gave third-party clients, as the admin area (a school's
 * view) and the account page (a person's view) list them. A connection is one client acting for
 * one person at one school; repeated authorizations of the same app make several grants, shown
 * as one connection and revoked together.
 */
import type { Db, Tx } from '../../store/database.ts';
import { inTransaction } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { formatScopes, parseScopes } from '../scopes.ts';
import type { ClientKind } from '../tables.ts';
import { type Revocation, revokeGrant } from './grants.ts';

/** One client acting for one person at one school. */
export interface Connection {
  /** The newest grant's id: what a revoke form names. */
  readonly key: string;
  readonly clientId: string;
  readonly clientName: string;
  readonly clientKind: ClientKind;
  readonly schoolId: string;
  readonly schoolName: string;
  readonly userId: string;
  readonly userEmail: string;
  readonly userName: string;
  readonly audience: 'operator' | 'member';
  readonly scopes: string[];
  /** When the person first authorized the app (of the live grants). */
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

// Far more grants than any page shows; bounds the work one page view can cause.
const MAX_ROWS = 2000;

/**
 * Live grants, filtered: unrevoked, with a refresh token that is still current (neither revoked,
 * rotated out nor expired). A grant whose code was never exchanged is not a connection.
 */
async function liveGrants(db: Db | Tx, filter: { schoolId?: string; userId?: string }) {
  const now = isoNow();
  let query = db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .innerJoin('users as u', 'u.id', 'g.user_id')
    .innerJoin('schools as s', 's.id', 'g.school_id')
    .select([
      'g.id',
      'g.client_id',
      'g.user_id',
      'g.school_id',
      'g.audience',
      'g.scopes',
      'g.created_at',
      'g.last_used_at',
      'c.name as client_name',
      'c.kind as client_kind',
      'u.email as user_email',
      'u.name as user_name',
      's.name as school_name',
    ])
    .where('g.revoked_at', 'is', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('oauth_tokens as t')
          .select('t.token_hash')
          .whereRef('t.grant_id', '=', 'g.id')
          .where('t.kind', '=', 'refresh')
          .where('t.revoked_at', 'is', null)
          .where('t.rotated_at', 'is', null)
          .where('t.expires_at', '>', now),
      ),
    );
  if (filter.schoolId !== undefined) query = query.where('g.school_id', '=', filter.schoolId);
  if (filter.userId !== undefined) query = query.where('g.user_id', '=', filter.userId);
  return query.orderBy('g.id', 'desc').limit(MAX_ROWS).execute();
}

type Row = Awaited<ReturnType<typeof liveGrants>>[number];

function group(rows: Row[]): Connection[] {
  const byKey = new Map<string, { first: Row; rows: Row[] }>();
  for (const row of rows) {
    const k = `${row.school_id}\n${row.user_id}\n${row.client_id}`;
    const entry = byKey.get(k);
    if (entry) entry.rows.push(row);
    else byKey.set(k, { first: row, rows: [row] });
  }
  return [...byKey.values()].map(({ first, rows: all }) => {
    const used = all.map((r) => r.last_used_at).filter((v): v is string => v !== null);
    return {
      key: first.id,
      clientId: first.client_id,
      clientName: first.client_name,
      clientKind: first.client_kind,
      schoolId: first.school_id,
      schoolName: first.school_name,
      userId: first.user_id,
      userEmail: first.user_email,
      userName: first.user_name,
      audience: first.audience,
      scopes: parseScopes(formatScopes(all.flatMap((r) => parseScopes(r.scopes)))),
      createdAt: all.map((r) => r.created_at).sort()[0],
      lastUsedAt: used.length > 0 ? used.sort().at(-1)! : null,
    };
  });
}

/** Every connection at a school (the operator's view), newest first. */
export async function listSchoolConnections(db: Db | Tx, schoolId: string): Promise<Connection[]> {
  return group(await liveGrants(db, { schoolId }));
}

/** Every connection a person has made, at any school (the account page), newest first. */
export async function listUserConnections(db: Db | Tx, userId: string): Promise<Connection[]> {
  return group(await liveGrants(db, { userId }));
}

/** Revokes every live grant (and its tokens) of the connection the grant belongs to. */
async function revokeConnectionOf(
  db: Db,
  grantId: string,
  scope: { schoolId?: string; userId?: string },
  why: Revocation,
): Promise<number> {
  return inTransaction(db, async (tx) => {
    let find = tx
      .selectFrom('oauth_grants')
      .select(['client_id', 'user_id', 'school_id'])
      .where('id', '=', grantId);
    if (scope.schoolId !== undefined) find = find.where('school_id', '=', scope.schoolId);
    if (scope.userId !== undefined) find = find.where('user_id', '=', scope.userId);
    const grant = await find.executeTakeFirst();
    if (!grant) return 0;
    const siblings = await tx
      .selectFrom('oauth_grants')
      .select('id')
      .where('client_id', '=', grant.client_id)
      .where('user_id', '=', grant.user_id)
      .where('school_id', '=', grant.school_id)
      .where('revoked_at', 'is', null)
      .execute();
    for (const s of siblings) await revokeGrant(tx, s.id, why);
    return siblings.length;
  });
}

/**
 * An operator disconnects an app from a person at their school. Only grants of `schoolId` are
 * found, so another school's grant id revokes nothing. Returns the number of grants revoked.
 */
export function revokeSchoolConnection(db: Db, schoolId: string, grantId: string): Promise<number> {
  return revokeConnectionOf(db, grantId, { schoolId }, { by: 'operator' });
}

/**
 * A person disconnects one of their own apps. Only the person's own grants are found, so a
 * grant id of someone else revokes nothing. Returns the number of grants revoked.
 */
export function revokeOwnConnection(db: Db, userId: string, grantId: string): Promise<number> {
  return revokeConnectionOf(db, grantId, { userId }, { by: 'member' });
}
