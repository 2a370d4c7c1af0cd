import { html } from 'hono/html';
import { PostgresAdapter } from 'kysely';
import type { Logger } from 'pino';
import { newId } from '../crypto/ids.ts';
import { parseRoles } from '../domain/school/roles.ts';
import { SYSTEM_ACTOR } from '../events/context.ts';
import { recordEvent } from '../events/outbox.ts';
import { composeMail } from '../mail/compose.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Db, Tx } from '../store/database.ts';
import { isoNow } from '../store/time.ts';
import type { ClaimedDelivery } from './claim.ts';
import type { PostResult } from './post.ts';
import { MAX_ATTEMPTS, retryAfterMs, retryDelayMs } from './schedule.ts';

/** What one attempt decided. */
export interface Verdict {
  readonly delivered: boolean;
  /** When to try again; null when the delivery is over (delivered, failed, or the endpoint is gone). */
  readonly nextAttemptAt: number | null;
  /** Why Lectern disables the endpoint now, if it does. */
  readonly disable?: 'gone' | 'failing';
}

/**
 * Judges an attempt: 2xx delivers; `410 Gone` ends the delivery and disables the endpoint;
 * anything else (3xx included: redirects are not followed) retries on the schedule, or after
 * `Retry-After` on 429 and 503; an endpoint failing with no success for `disableAfterMs` is
 * disabled.
 */
export function judge(
  result: PostResult,
  attempts: number,
  failingSince: string | null,
  now: number,
  disableAfterMs: number,
  random: number,
): Verdict {
  const status = result.status;
  if (result.error === null && status !== null && status >= 200 && status < 300) {
    return { delivered: true, nextAttemptAt: null };
  }
  if (status === 410) return { delivered: false, nextAttemptAt: null, disable: 'gone' };
  const since = failingSince ? Date.parse(failingSince) : now;
  const disable = now - since >= disableAfterMs ? ('failing' as const) : undefined;
  const honoured = status === 429 || status === 503 ? retryAfterMs(result.retryAfter, now) : undefined;
  const delay = attempts >= MAX_ATTEMPTS ? undefined : (honoured ?? retryDelayMs(attempts, random));
  return { delivered: false, nextAttemptAt: delay === undefined ? null : now + delay, disable };
}

const REASONS = {
  gone: 'The endpoint answered 410 Gone: it asked not to be called again.',
  failing: 'The endpoint kept failing for days without one successful delivery.',
} as const;

/**
 * Writes the attempt, the delivery's new state and the endpoint's health in one transaction.
 * Resolves false, writing nothing, when the endpoint or the delivery was deleted while the
 * attempt was in flight (an operator removed the endpoint): there is nothing left to record on.
 */
export async function recordOutcome(
  db: Db,
  delivery: ClaimedDelivery,
  leaseOwner: string,
  event: { type: string },
  result: PostResult,
  verdict: Verdict,
  attempts: number,
  now: number,
): Promise<boolean> {
  const at = isoNow(now);
  const next = verdict.nextAttemptAt === null ? null : isoNow(verdict.nextAttemptAt);
  return db.transaction().execute(async (tx) => {
    if (!(await holdEndpoint(tx, delivery.endpoint_id))) return false;
    const updated = await tx
      .updateTable('webhook_deliveries')
      .set({
        status: verdict.delivered ? 'succeeded' : next ? 'pending' : 'failed',
        attempts,
        next_attempt_at: next,
        // lease_owner stays: which instance made the last attempt (operators debugging, tests).
        lease_until: null,
        last_status_code: result.status,
        updated_at: at,
      })
      .where('id', '=', delivery.id)
      // Only while this instance still holds it: a lease that lapsed (a stall past the timeout)
      // was taken over, and the taker's outcome must not be overwritten.
      .where('lease_owner', '=', leaseOwner)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    await tx
      .insertInto('webhook_attempts')
      .values({
        id: newId('wha', now),
        school_id: delivery.school_id,
        delivery_id: delivery.id,
        endpoint_id: delivery.endpoint_id,
        event_id: delivery.event_id,
        event_type: event.type,
        attempted_at: at,
        status_code: result.status,
        latency_ms: Math.round(result.latencyMs),
        response_excerpt: result.excerpt.replaceAll('\u0000', ''),
        error: result.error,
        next_retry_at: next,
      })
      .execute();
    await recordHealth(tx, delivery, result, verdict, at);
    return true;
  });
}

/**
 * Whether the endpoint still exists, keeping it so until the transaction ends. On PostgreSQL the
 * row is locked `FOR KEY SHARE`, the lock a foreign key check takes: a concurrent delete waits
 * for this transaction (or this read waits for the delete and finds no row), and the locks are
 * taken in the order a delete's cascade takes them (endpoint, then delivery), so neither waits
 * on the other in a cycle. On SQLite the transaction already holds the write lock.
 */
async function holdEndpoint(tx: Tx, endpointId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('id', '=', endpointId)
    .$if(tx.getExecutor().adapter instanceof PostgresAdapter, (q) => q.forKeyShare())
    .executeTakeFirst();
  return row !== undefined;
}

/** The endpoint's failing streak, and disabling it (with its audit event) when the verdict says so. */
async function recordHealth(
  tx: Tx,
  delivery: ClaimedDelivery,
  result: PostResult,
  verdict: Verdict,
  at: string,
): Promise<void> {
  if (verdict.delivered) {
    await tx
      .updateTable('webhook_endpoints')
      .set({ failing_since: null })
      .where('id', '=', delivery.endpoint_id)
      .where('failing_since', 'is not', null)
      .execute();
    return;
  }
  await tx
    .updateTable('webhook_endpoints')
    .set({ failing_since: at })
    .where('id', '=', delivery.endpoint_id)
    .where('failing_since', 'is', null)
    .execute();
  if (verdict.disable) {
    const disabled = await tx
      .updateTable('webhook_endpoints')
      .set({ enabled: 0, disabled_reason: REASONS[verdict.disable], updated_at: at })
      .where('id', '=', delivery.endpoint_id)
      .where('enabled', '=', 1)
      .executeTakeFirst();
    if (Number(disabled.numUpdatedRows) === 1) {
      await recordEvent(
        tx,
        delivery.school_id,
        'webhook_endpoint.disabled',
        { endpoint_id: delivery.endpoint_id, reason: verdict.disable, last_status_code: result.status },
        { actor: SYSTEM_ACTOR, occurredAt: at },
      );
    }
  }
}

/** Tells the school's owners by email (when mail is configured) that an endpoint was disabled. */
export async function notifyOwners(
  db: Db,
  mailer: Mailer,
  logger: Logger,
  schoolId: string,
  endpointId: string,
  baseUrl: string,
): Promise<void> {
  if (!mailer.enabled) return;
  try {
    const endpoint = await db
      .selectFrom('webhook_endpoints')
      .select(['url', 'disabled_reason'])
      .where('id', '=', endpointId)
      .executeTakeFirst();
    const school = await db
      .selectFrom('schools')
      .select('name')
      .where('id', '=', schoolId)
      .executeTakeFirst();
    if (!endpoint || !school) return;
    const people = await db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['users.email', 'memberships.roles'])
      .where('memberships.school_id', '=', schoolId)
      .where('memberships.status', '=', 'active')
      .execute();
    const owners = people.filter((p) => parseRoles(p.roles).includes('owner'));
    const link = `${baseUrl}/admin/${schoolId}/webhooks`;
    for (const owner of owners) {
      const message = await composeMail(
        owner.email,
        `${school.name} via Lectern`,
        `Webhook endpoint disabled: ${endpoint.url}`,
        [
          {
            text: `Lectern disabled the webhook endpoint ${endpoint.url} of ${school.name}.`,
            html: html`Lectern disabled the webhook endpoint <code>${endpoint.url}</code> of ${school.name}.`,
          },
          { text: endpoint.disabled_reason ?? '' },
          { text: 'Events are kept and delivered once you enable it again:', link },
        ],
      );
      await mailer.send(message);
    }
  } catch (err) {
    logger.warn({ err, endpointId }, 'could not email the owners about a disabled webhook endpoint');
  }
}
