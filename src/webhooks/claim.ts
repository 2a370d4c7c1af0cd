import { PostgresAdapter, sql } from 'kysely';
import type { Db } from '../store/database.ts';
import { isoNow } from '../store/time.ts';

/** A delivery this instance holds until its lease ends. */
export interface ClaimedDelivery {
  id: string;
  school_id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
}

/**
 * Leases up to `limit` due deliveries of enabled endpoints, oldest first, to `owner` until
 * `leaseUntil`: one statement, so two instances never hold the same row. PostgreSQL: the rows are
 * picked `FOR UPDATE SKIP LOCKED`, so a concurrent claim skips what this one is taking instead
 * of waiting or taking it too (and re-checks the lease on rows committed meanwhile). SQLite has a
 * single writer: the UPDATE's own WHERE (no live lease) is the lease.
 */
export async function claimDue(
  db: Db,
  owner: string,
  now: number,
  leaseUntil: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const at = isoNow(now);
  const due = sql`
    select d.id from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id
     where d.status = 'pending'
       and d.next_attempt_at <= ${at}
       and (d.lease_until is null or d.lease_until < ${at})
       and e.enabled = 1
     order by d.id
     limit ${limit}`;
  const lease = sql`lease_owner = ${owner}, lease_until = ${isoNow(leaseUntil)}, updated_at = ${at}`;
  const returning = sql`returning webhook_deliveries.id, webhook_deliveries.school_id,
    webhook_deliveries.endpoint_id, webhook_deliveries.event_id, webhook_deliveries.attempts`;
  // PostgreSQL: pick in a CTE (evaluated once; an IN (… LIMIT … FOR UPDATE) subquery may be
  // re-run by the planner and lease more than `limit` rows).
  const query =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? sql<ClaimedDelivery>`
        with picked as (${due} for update of d skip locked)
        update webhook_deliveries set ${lease} from picked
         where webhook_deliveries.id = picked.id ${returning}`
      : sql<ClaimedDelivery>`
        update webhook_deliveries set ${lease}
         where id in (${due})
           and status = 'pending'
           and (lease_until is null or lease_until < ${at}) ${returning}`;
  const { rows } = await query.execute(db);
  return [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** Extends this instance's lease before an attempt; false when it was lost (another instance has it). */
export async function renewLease(db: Db, id: string, owner: string, leaseUntil: number): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ lease_until: isoNow(leaseUntil) })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives back deliveries not attempted this round (their endpoint just failed): due again at once. */
export async function releaseLeases(db: Db, ids: readonly string[], owner: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_until: null })
    .where('id', 'in', [...ids])
    .where('lease_owner', '=', owner)
    .execute();
}
