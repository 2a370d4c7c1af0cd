import { CompiledQuery, type InferResult } from 'kysely';
import type { Config } from '../config.ts';
import { sha256 } from '../crypto/tokens.ts';
import { standingRoles } from '../domain/school/standing.ts';
import { identifyActor } from '../events/context.ts';
import { isOriginResource } from '../oauth/metadata/resource-param.ts';
import { type Audience, parseScopes } from '../oauth/scopes.ts';
import { changeWatermark, type Db, preparedOnPostgres } from '../store/database.ts';
import { nowMs } from '../store/time.ts';
import type { Principal } from './principal.ts';

/** Why a bearer token was not accepted (RFC 6750 §3.1). */
export interface BearerFailure {
  readonly ok: false;
  /** `invalid_request` for a malformed Authorization header, else `invalid_token`. */
  readonly error: 'invalid_token' | 'invalid_request';
  readonly description: string;
  /** False when no credentials were presented at all (RFC 6750 §3.1: then no error code is owed). */
  readonly tokenPresented: boolean;
}

type BearerResult = { readonly ok: true; readonly principal: Principal } | BearerFailure;

/** Framework-free bearer verification shared by every protected surface. */
export interface BearerVerifier {
  /** Verifies the raw `Authorization` header value (undefined when absent). */
  verify(authorization: string | undefined | null): Promise<BearerResult>;
}

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MAX_HEADER = 4096;

const fail = (error: BearerFailure['error'], description: string, tokenPresented = true): BearerFailure => ({
  ok: false,
  error,
  description,
  tokenPresented,
});

/** The token, its grant, the holder's membership and name, by token hash: one indexed join. */
function tokenLookup(db: Db, tokenHash: string) {
  return db
    .selectFrom('oauth_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .leftJoin('memberships as m', (j) =>
      j.onRef('m.school_id', '=', 't.school_id').onRef('m.user_id', '=', 't.user_id'),
    )
    .leftJoin('oauth_clients as c', 'c.id', 't.client_id')
    .leftJoin('users as u', 'u.id', 't.user_id')
    .select([
      't.kind',
      't.user_id',
      't.school_id',
      't.client_id',
      't.grant_id',
      't.scopes',
      't.resource',
      't.expires_at',
      't.revoked_at',
      'g.revoked_at as grant_revoked_at',
      'g.audience',
      'm.roles',
      'm.status as membership_status',
      'c.kind as client_kind',
      'c.reviewed as client_reviewed',
      'c.allowed_scopes as client_allowed_scopes',
      'u.email as user_email',
      'u.name as user_name',
    ])
    .where('t.token_hash', '=', tokenHash);
}

type TokenRow = InferResult<ReturnType<typeof tokenLookup>>[number];

/** How many verified tokens the cache holds; past it the oldest entry goes. */
const CACHE_ENTRIES = 10_000;

/**
 * Verified principals by token hash, valid only while the database's change watermark stands
 * still: any write anywhere (a revocation, a removed membership, another process's commit) moves
 * it, and the whole cache is dropped before the next lookup. So a revoked token still fails on
 * its very next use, on every instance sharing the database file (product.md §5).
 */
class PrincipalCache {
  readonly #watermark: () => string;
  readonly #entries = new Map<string, { principal: Principal; expiresAtMs: number }>();
  #generation = '';

  constructor(watermark: () => string) {
    this.#watermark = watermark;
  }

  /** Drops everything if the database moved; returns the generation reads are made under. */
  sync(): string {
    const now = this.#watermark();
    if (now !== this.#generation) {
      this.#entries.clear();
      this.#generation = now;
    }
    return now;
  }

  get(tokenHash: string) {
    return this.#entries.get(tokenHash);
  }

  /** Keeps a lookup's result only if nothing was written since `generation` was read. */
  put(generation: string, tokenHash: string, principal: Principal, expiresAtMs: number): void {
    if (generation !== this.#generation) return;
    if (this.#entries.size >= CACHE_ENTRIES)
      this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(tokenHash, { principal, expiresAtMs });
  }
}

/** A verified token: the events of the rest of the request name its user and client as actor. */
function identified(principal: Principal): BearerResult {
  identifyActor({ type: 'user', id: principal.userId, clientId: principal.clientId });
  return { ok: true, principal };
}

/**
 * Verifies opaque access tokens against the token store: revocation and expiry take effect on
 * the next request on every instance (product.md §5). One indexed query; on the embedded SQLite
 * store a verified token is then remembered until the database changes (PrincipalCache). Built
 * once by the runtime and carried on the app context (`ctx.verifier`).
 */
export function createBearerVerifier(
  ctx: { readonly db: Db; readonly config: Pick<Config, 'baseUrl'> },
  clock: () => number = nowMs,
): BearerVerifier {
  const baseUrl = ctx.config.baseUrl;
  // Built and compiled once: the query builder's cost would otherwise be paid on every request.
  const lookup = tokenLookup(ctx.db, '').compile();
  if (lookup.parameters.length !== 1) throw new Error('token lookup must take exactly the token hash');
  preparedOnPostgres(ctx.db, lookup.sql);
  const watermark = changeWatermark(ctx.db);
  const cache = watermark ? new PrincipalCache(watermark) : undefined;
  return {
    async verify(authorization) {
      if (authorization === undefined || authorization === null || authorization === '') {
        return fail('invalid_token', 'No access token was presented.', false);
      }
      if (authorization.length > MAX_HEADER) return fail('invalid_token', 'The access token is malformed.');
      const match = BEARER.exec(authorization);
      if (!match) {
        // RFC 6750 §2.1: only the Bearer scheme, in the Authorization header.
        return fail(
          'invalid_token',
          'The Authorization header must use the Bearer scheme: Bearer <access token>.',
        );
      }
      const tokenHash = sha256(match[1]);
      const generation = cache?.sync();
      const hit = cache?.get(tokenHash);
      if (hit) {
        if (!(hit.expiresAtMs > clock())) return fail('invalid_token', 'The access token has expired.');
        return identified(hit.principal);
      }
      const { rows } = await ctx.db.executeQuery<TokenRow>(CompiledQuery.raw(lookup.sql, [tokenHash]));
      const row = rows[0];
      if (row?.kind !== 'access') return fail('invalid_token', 'The access token is not valid.');
      if (row.revoked_at || row.grant_revoked_at)
        return fail('invalid_token', 'The access token has been revoked.');
      const expiresAt = Date.parse(row.expires_at);
      if (!(expiresAt > clock())) return fail('invalid_token', 'The access token has expired.');
      // RFC 8707 §2 / spec §5.5: a token bound to another origin is not valid here; one named for
      // any of this origin's resources works at every surface.
      if (!isOriginResource(row.resource, baseUrl)) {
        return fail('invalid_token', 'The access token was issued for a different resource.');
      }
      // The standing of an active membership only (domain/school/standing.ts).
      const roles = standingRoles({ roles: row.roles, status: row.membership_status });
      if (roles.length === 0) return fail('invalid_token', 'The user no longer belongs to this school.');
      const principal: Principal = {
        tokenHash,
        userId: row.user_id,
        schoolId: row.school_id,
        roles,
        clientId: row.client_id,
        client: {
          // A client row can go (an unreviewed metadata document pruned): grant nothing more.
          kind: row.client_kind ?? 'cimd',
          reviewed: Boolean(row.client_reviewed),
          allowedScopes: row.client_allowed_scopes === null ? null : parseScopes(row.client_allowed_scopes),
        },
        grantId: row.grant_id,
        audience: row.audience as Audience,
        scopes: new Set(row.scopes.split(' ').filter(Boolean)),
        resource: row.resource,
        expiresAt: Math.floor(expiresAt / 1000),
        user:
          row.user_email === null || row.user_name === null
            ? undefined
            : { email: row.user_email, name: row.user_name },
      };
      if (generation !== undefined) cache?.put(generation, tokenHash, principal, expiresAt);
      return identified(principal);
    },
  };
}
