import { idFloor } from '../crypto/ids.ts';
import type { Db } from '../store/database.ts';
import type { HousekeepingJob } from '../store/housekeeping.ts';

/**
 * Deletes the events recorded more than `retentionDays` before `now` (their deliveries go with
 * them); how many.
 */
async function pruneEvents(db: Db, retentionDays: number, now: number): Promise<number> {
  // Ids are ULIDs, time first: the primary key finds every event recorded before the cutoff.
  const eventCutoff = idFloor('evt', now - retentionDays * 86_400_000);
  // School by school, so each delete is a range of the primary key (school_id, id).
  let pruned = 0;
  for (const school of await db.selectFrom('schools').select('id').execute()) {
    const done = await db
      .deleteFrom('domain_events')
      .where('school_id', '=', school.id)
      .where('id', '<', eventCutoff)
      .executeTakeFirst();
    pruned += Number(done.numDeletedRows);
  }
  return pruned;
}

/** The outbox's housekeeping: the audit trail keeps EVENT_RETENTION_DAYS. */
export const jobs: readonly HousekeepingJob[] = [
  {
    name: 'events',
    run: async (db, now, config) => ({ pruned: await pruneEvents(db, config.events.retentionDays, now) }),
  },
];
