import { PostgresAdapter, sql } from 'kysely';
import type { Db } from '../store/database.ts';
import { isoNow } from '../store/time.ts';
import type { DueDelivery } from './fairness.ts';

/** A delivery this instance holds until its lease ends. */
export interface ClaimedDelivery {
  id: string;
  school_id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
}

/** Due deliveries read per endpoint by one claim: the most one lane takes on in a row. */
const RUN_LENGTH = 20;

/** Rows one claim reads at most: the oldest due deliveries of many endpoints. */
const MAX_DUE_ROWS = 1000;

/**
 * The due deliveries of enabled endpoints that no instance holds, at most `RUN_LENGTH` per
 * endpoint, oldest first; endpoints already in flight on this instance and schools at their
 * bound are left out (the caller chooses among the rest: fairness.ts). Reads only; leasing is
 * `leaseDeliveries`, which re-checks every row.
 */
export async function findDue(
  db: Db,
  now: number,
  skip: { endpoints: readonly string[]; schools: readonly string[] },
): Promise<DueDelivery[]> {
  const at = isoNow(now);
  const notIn = (column: string, ids: readonly string[]) =>
    ids.length === 0 ? sql`` : sql`and ${sql.ref(column)} not in (${sql.join(ids)})`;
  const { rows } = await sql<DueDelivery>`
    select id, school_id, endpoint_id from (
      select d.id, d.school_id, d.endpoint_id,
             row_number() over (partition by d.endpoint_id order by d.id) as nth
        from webhook_deliveries d
        join webhook_endpoints e on e.id = d.endpoint_id
       where d.status = 'pending'
         and d.next_attempt_at <= ${at}
         and (d.lease_until is null or d.lease_until < ${at})
         and e.enabled = 1
         ${notIn('d.endpoint_id', skip.endpoints)}
         ${notIn('d.school_id', skip.schools)}
    ) due
     where nth <= ${RUN_LENGTH}
     order by id
     limit ${MAX_DUE_ROWS}`.execute(db);
  return [...rows];
}

/**
 * Leases the given deliveries to `owner` until `leaseUntil`, each only if it is still pending and
 * no live lease holds it: one statement, so two instances never hold the same row. PostgreSQL:
 * the rows are locked `FOR UPDATE SKIP LOCKED` in a CTE (never inlined, so evaluated once), so a
 * concurrent claim skips what this one is taking instead of waiting or taking it too, and rows
 * committed meanwhile are re-checked. SQLite has a single writer: the UPDATE's own WHERE is the
 * lease. Returns what was leased, oldest first.
 */
export async function leaseDeliveries(
  db: Db,
  owner: string,
  ids: readonly string[],
  now: number,
  leaseUntil: number,
): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  const at = isoNow(now);
  const free = sql`status = 'pending' and (lease_until is null or lease_until < ${at})`;
  const lease = sql`lease_owner = ${owner}, lease_until = ${isoNow(leaseUntil)}, updated_at = ${at}`;
  const returning = sql`returning webhook_deliveries.id, webhook_deliveries.school_id,
    webhook_deliveries.endpoint_id, webhook_deliveries.event_id, webhook_deliveries.attempts`;
  const list = sql.join([...ids]);
  const query =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? sql<ClaimedDelivery>`
        with picked as (
          select id from webhook_deliveries where id in (${list}) and ${free} for update skip locked)
        update webhook_deliveries set ${lease} from picked
         where webhook_deliveries.id = picked.id ${returning}`
      : sql<ClaimedDelivery>`
        update webhook_deliveries set ${lease} where id in (${list}) and ${free} ${returning}`;
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

/**
 * Gives back deliveries leased but not attempted (their endpoint just failed, or the worker
 * stops): due again at once.
 */
export async function releaseLeases(db: Db, ids: readonly string[], owner: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_until: null })
    .where('id', 'in', [...ids])
    .where('lease_owner', '=', owner)
    .execute();
}
