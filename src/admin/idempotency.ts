import { createHash } from 'node:crypto';
import { ProblemError } from '../errors/problem-error.ts';
import type { Db } from '../store/database.ts';
import { isoIn, isoNow } from '../store/time.ts';

/** How long a key is remembered: long enough for any client retry loop. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
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

export type IdempotencyClaim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'replay'; readonly status: number; readonly body: string };

/** Checks the `Idempotency-Key` header value: 1..255 visible ASCII characters. */
export function checkIdempotencyKey(key: string): void {
  if (!KEY.test(key)) {
    throw new ProblemError(400, 'invalid_idempotency_key', 'Bad Request', {
      detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
    });
  }
}

function requestHash(r: IdempotentRequest): string {
  return createHash('sha256').update(`${r.method}\n${r.path}\n${r.fingerprint}`).digest('base64url');
}

/**
 * Claims a key before the request runs, with a row that is committed at once: of two concurrent
 * requests with the same key only one inserts it and executes; the other sees it in progress
 * (409) or, once finished, replays the stored response. A key reused for a different request
 * is a 422 `idempotency_key_reused` (the IETF httpapi Idempotency-Key draft, §2.7).
 */
export async function claimIdempotencyKey(db: Db, r: IdempotentRequest): Promise<IdempotencyClaim> {
  const hash = requestHash(r);
  // Expired keys of this client go first (an index range on the primary key's prefix), so the
  // table stays bounded by what clients sent in the last day.
  await db
    .deleteFrom('idempotency_keys')
    .where('school_id', '=', r.schoolId)
    .where('client_id', '=', r.clientId)
    .where('created_at', '<', isoIn(-IDEMPOTENCY_TTL_SECONDS))
    .execute();
  const inserted = await db
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
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'claimed' };
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'response_status', 'response_body'])
    .where('school_id', '=', r.schoolId)
    .where('client_id', '=', r.clientId)
    .where('key', '=', r.key)
    .executeTakeFirst();
  if (!row) return claimIdempotencyKey(db, r);
  if (row.request_hash !== hash) {
    throw new ProblemError(422, 'idempotency_key_reused', 'Unprocessable Content', {
      detail: 'This Idempotency-Key was already used for a different request.',
    });
  }
  if (row.response_status === IN_PROGRESS) {
    throw new ProblemError(409, 'idempotency_key_in_progress', 'Conflict', {
      detail: 'A request with this Idempotency-Key is still being processed; retry shortly.',
      headers: { 'Retry-After': '1' },
    });
  }
  return { kind: 'replay', status: row.response_status, body: row.response_body };
}

/** Stores the response of a claimed key, so retries replay it. */
export async function completeIdempotencyKey(
  db: Db,
  r: IdempotentRequest,
  status: number,
  body: string,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ response_status: status, response_body: body })
    .where('school_id', '=', r.schoolId)
    .where('client_id', '=', r.clientId)
    .where('key', '=', r.key)
    .execute();
}

/** Forgets a claimed key whose request failed on the server side, so a retry runs again. */
export async function releaseIdempotencyKey(db: Db, r: IdempotentRequest): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('school_id', '=', r.schoolId)
    .where('client_id', '=', r.clientId)
    .where('key', '=', r.key)
    .execute();
}
