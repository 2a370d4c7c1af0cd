/**
 * ES256 signing keys for id_tokens (product.md §5). Private JWKs are sealed with config.secret and
 * kept in `signing_keys`; every instance reads the same rows, so a rotation on one instance is
 * seen by the others within ACTIVE_TTL_MS.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { SigningKeysTable } from '../oauth/tables.ts';
import type { Db } from '../store/database.ts';
import { isoIn, isoNow, nowMs } from '../store/time.ts';
import { open, seal } from './secret-box.ts';

/** A usable signing key: `kid` is the RFC 7638 thumbprint of the public JWK. */
export interface SigningKey {
  kid: string;
  alg: 'ES256';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** Spec §8: the id_token lives 10 minutes. */
export const ID_TOKEN_LIFETIME_SECONDS = 600;

/** How long an instance trusts its cached view of the key table before re-reading it. */
export const ACTIVE_TTL_MS = 30_000;

/**
 * A retired key stays published for the longest id_token lifetime, plus the time other instances
 * may keep signing with it before they re-read the table, plus clock skew.
 */
export const RETIRED_KEY_GRACE_SECONDS = ID_TOKEN_LIFETIME_SECONDS + ACTIVE_TTL_MS / 1000 + 300;

/**
 * The signing keys of one database, with this instance's cache of them: built once by the runtime
 * and carried on the app context (`ctx.signingKeys`), so a second runtime (another instance) has
 * its own cached view.
 */
export interface SigningKeys {
  readonly db: Db;
  readonly secret: Uint8Array;
  /** The active key as last read, and when; re-read after ACTIVE_TTL_MS. */
  active?: { key: SigningKey; readAt: number };
  /** Imported private keys by kid (importing is the slow part). */
  readonly imported: Map<string, Promise<SigningKey>>;
}

/** The signing-key service of one database and deployment secret. */
export function createSigningKeys(deps: { readonly db: Db; readonly secret: Uint8Array }): SigningKeys {
  return { db: deps.db, secret: deps.secret, imported: new Map() };
}

/** What the key functions need: the app context, or anything else carrying the service. */
type WithKeys = { readonly signingKeys: SigningKeys };

function publicJwkOf(jwk: JWK, kid: string): JWK {
  const { kty, crv, x, y } = jwk;
  return { kty, crv, x, y, kid, use: 'sig', alg: 'ES256' };
}

async function importRow(cache: SigningKeys, row: SigningKeysTable): Promise<SigningKey> {
  let pending = cache.imported.get(row.kid);
  if (!pending) {
    pending = (async () => {
      // The kid is the associated data: a sealed key cannot be moved to another row.
      const privateJwk = JSON.parse(open(cache.secret, row.private_jwk_encrypted, row.kid)) as JWK;
      const privateKey = (await importJWK(privateJwk, 'ES256')) as CryptoKey;
      return {
        kid: row.kid,
        alg: 'ES256' as const,
        privateKey,
        publicJwk: JSON.parse(row.public_jwk) as JWK,
      };
    })();
    pending.catch(() => cache.imported.delete(row.kid));
    cache.imported.set(row.kid, pending);
  }
  return pending;
}

async function insertNewKey(keys: SigningKeys): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const privateJwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(privateJwk, 'sha256');
  await keys.db
    .insertInto('signing_keys')
    .values({
      kid,
      alg: 'ES256',
      public_jwk: JSON.stringify(publicJwkOf(privateJwk, kid)),
      private_jwk_encrypted: seal(keys.secret, JSON.stringify({ ...privateJwk, kid }), kid),
      created_at: isoNow(),
      retired_at: null,
      expires_at: null,
    })
    .execute();
  return kid;
}

/** The newest unretired key row; when two instances raced to create one, both pick the same. */
function newestActive(keys: SigningKeys) {
  return keys.db
    .selectFrom('signing_keys')
    .selectAll()
    .where('retired_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('kid', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * The active ES256 key (created on first use; private JWK sealed with config.secret). Re-read from
 * the table once the cached view is ACTIVE_TTL_MS old, so rotations elsewhere are picked up.
 */
export async function getSigningKey(ctx: WithKeys, now: number = nowMs()): Promise<SigningKey> {
  const cache = ctx.signingKeys;
  const age = cache.active ? now - cache.active.readAt : Number.POSITIVE_INFINITY;
  if (cache.active && age >= 0 && age < ACTIVE_TTL_MS) return cache.active.key;
  let row = await newestActive(cache);
  if (!row) {
    await insertNewKey(cache);
    row = await newestActive(cache);
    if (!row) throw new Error('signing key was not stored');
  }
  const key = await importRow(cache, row);
  cache.active = { key, readAt: now };
  return key;
}

/**
 * Public keys still needed to verify live tokens (RFC 7517 JWK Set with kid, use=sig, alg=ES256).
 * Read from the table on every call (clients cache the set), so a key rotated in on another
 * instance is published here at once.
 */
export async function publicJwks(ctx: WithKeys, now: number = nowMs()): Promise<{ keys: JWK[] }> {
  const rows = await ctx.signingKeys.db
    .selectFrom('signing_keys')
    .select('public_jwk')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', isoNow(now))]))
    .orderBy('created_at', 'desc')
    .orderBy('kid', 'desc')
    .execute();
  return { keys: rows.map((r) => JSON.parse(r.public_jwk) as JWK) };
}

/**
 * Makes a new active key; every older key is retired and stays in the JWKS for
 * RETIRED_KEY_GRACE_SECONDS, until every token it signed has expired. Keys expired for a day
 * are deleted.
 */
export async function rotateSigningKey(ctx: WithKeys, now: number = nowMs()): Promise<SigningKey> {
  const cache = ctx.signingKeys;
  const kid = await insertNewKey(cache);
  await cache.db
    .updateTable('signing_keys')
    .set({ retired_at: isoNow(now), expires_at: isoIn(RETIRED_KEY_GRACE_SECONDS, now) })
    .where('retired_at', 'is', null)
    .where('kid', '!=', kid)
    .execute();
  await cache.db.deleteFrom('signing_keys').where('expires_at', '<', isoIn(-86_400, now)).execute();
  cache.active = undefined;
  const row = await cache.db
    .selectFrom('signing_keys')
    .selectAll()
    .where('kid', '=', kid)
    .executeTakeFirstOrThrow();
  const key = await importRow(cache, row);
  cache.active = { key, readAt: now };
  return key;
}
