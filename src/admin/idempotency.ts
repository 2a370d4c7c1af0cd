import { createHash } from 'node:crypto';
import { PostgresAdapter, sql } from 'kysely';
import { problem } from '../errors/problem-error.ts';
import type { Db, Tx } from '../store/database.ts';
import { isoIn, isoNow } from '../store/time.ts';

/** How long a key is remembered: long enough for any client retry loop. */
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
const KEY = /^[\x21-\x7e]{1,255}$/;
const IN_PROGRESS = 0;

/** Who is speaking and what they sent, which together identify a replayable request. */
export interface IdempotentRequest {
  readonly schoolId: string;
  readonly clientId: string;
  readonly key: string;
  readonly method: string;
  readonly path: string;
  /** The request's identity beyond method and path: query and body. */
  readonly fingerprint: string;
}

/** A request run under a key: executed now, or the stored response of its first success. */
export type IdempotentOutcome<T> =
  | { readonly kind: 'executed'; readonly result: T }
  | { readonly kind: 'replay'; readonly status: number; readonly body: string };

/** Checks the `Idempotency-Key` header value: 1..255 visible ASCII characters. */
export function checkIdempotencyKey(key: string): void {
  if (!KEY.test(key)) {
    throw problem('invalid_idempotency_key', {
      detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
    });
  }
}

function requestHash(r: IdempotentRequest): string {
  return createHash('sha256').update(`${r.method}\n${r.path}\n${r.fingerprint}`).digest('base64url');
}

// How long a duplicate waits on PostgreSQL for the first request holding its key to finish
// before answering 409 in progress, so waiters never pile up on pool connections.
const CLAIM_WAIT = '5s';
// A claim left in progress by the release before the claim became transactional (it committed
// claims before the work): after this long its request is dead, and the key is taken over.
const LEGACY_CLAIM_STALE_SECONDS = 300;

const inProgress = () =>
  problem('idempotency_key_in_progress', {
    detail: 'A request with this Idempotency-Key is still being processed; retry shortly.',
    headers: { 'Retry-After': '1' },
  });

const isPostgres = (db: Db | Tx) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * Runs `work` at most once per key: the claim row, everything the work writes and the stored
 * response commit in ONE transaction. So a request that dies with its process (kill -9, crash,
 * lost connection) leaves nothing behind, neither the object nor the claim, and its retry runs
 * afresh; a finished one replays. Two requests with one key: the second waits on the first's
 * uncommitted claim (the primary key; SQLite runs transactions one at a time), then replays its
 * response, or runs itself if the first failed and rolled back; on PostgreSQL it waits at most
 * CLAIM_WAIT and then answers 409 `idempotency_key_in_progress`. A key reused for a different
 * request is a 422 `idempotency_key_reused` (the IETF httpapi Idempotency-Key draft, §2.7). A
 * failed request (any throw) rolls back with its claim, so its retry runs anew.
 */
export async function runIdempotently<T>(
  db: Db,
  r: IdempotentRequest,
  work: (tx: Tx) => Promise<T>,
  response: (result: T) => { status: number; body: string },
): Promise<IdempotentOutcome<T>> {
  // Expired keys of this client go first (an index range on the primary key's prefix), so the
  // table stays bounded by what clients sent in the last day.
  await db
    .deleteFrom('idempotency_keys')
    .where('school_id', '=', r.schoolId)
    .where('client_id', '=', r.clientId)
    .where('created_at', '<', isoIn(-IDEMPOTENCY_TTL_SECONDS))
    .execute();
  const postgres = isPostgres(db);
  try {
    return await db.transaction().execute(async (tx) => {
      if (postgres) await sql`set local lock_timeout = ${sql.lit(CLAIM_WAIT)}`.execute(tx);
      const claim = await claimKey(tx, r, requestHash(r));
      if (postgres) await sql`set local lock_timeout = default`.execute(tx);
      if (claim) return claim;
      const result = await work(tx);
      const { status, body } = response(result);
      await tx
        .updateTable('idempotency_keys')
        .set({ response_status: status, response_body: body })
        .where('school_id', '=', r.schoolId)
        .where('client_id', '=', r.clientId)
        .where('key', '=', r.key)
        .execute();
      return { kind: 'executed', result };
    });
  } catch (err) {
    // SQLSTATE 55P03 lock_not_available: the first request still holds the key after CLAIM_WAIT.
    if ((err as { code?: string }).code === '55P03') throw inProgress();
    throw err;
  }
}

// Inserts the claim inside the caller's transaction; undefined when it is ours to run, else the
// stored response to replay (or a 422/409 problem).
async function claimKey(
  tx: Tx,
  r: IdempotentRequest,
  hash: string,
): Promise<{ kind: 'replay'; status: number; body: string } | undefined> {
  const inserted = await tx
    .insertInto('idempotency_keys')
    .values({
      school_id: r.schoolId,
      client_id: r.clientId,
      key: r.key,
      method: r.method,
      path: r.path,
      request_hash: hash,
      response_status: IN_PROGRESS,
      response_body: '',
      created_at: isoNow(),
    })
    .onConflict((oc) => oc.columns(['school_id', 'client_id', 'key']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return undefined;
  const row = await tx
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'response_status', 'response_body', 'created_at'])
    .where('school_id', '=', r.schoolId)
    .where('client_id', '=', r.clientId)
    .where('key', '=', r.key)
    .executeTakeFirst();
  if (!row) return claimKey(tx, r, hash);
  if (row.request_hash !== hash) {
    throw problem('idempotency_key_reused', {
      detail: 'This Idempotency-Key was already used for a different request.',
    });
  }
  if (row.response_status !== IN_PROGRESS) {
    return { kind: 'replay', status: row.response_status, body: row.response_body };
  }
  if (row.created_at > isoIn(-LEGACY_CLAIM_STALE_SECONDS)) throw inProgress();
  const taken = await tx
    .updateTable('idempotency_keys')
    .set({ created_at: isoNow() })
    .where('school_id', '=', r.schoolId)
    .where('client_id', '=', r.clientId)
    .where('key', '=', r.key)
    .where('response_status', '=', IN_PROGRESS)
    .executeTakeFirst();
  // Zero rows: a concurrent retry took it over and finished first; replay its response.
  return Number(taken.numUpdatedRows) === 1 ? undefined : claimKey(tx, r, hash);
}
