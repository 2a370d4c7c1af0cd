import type { Db } from '../store/database.ts';
import type { HousekeepingJob } from '../store/housekeeping.ts';
import { isoNow } from '../store/time.ts';

/** How long finished deliveries and attempts stay in an endpoint's log. */
const DELIVERY_LOG_DAYS = 30;

/** Prunes the delivery log beyond DELIVERY_LOG_DAYS: attempts, and deliveries no longer pending. */
async function pruneDeliveryLog(db: Db, now: number): Promise<{ attempts: number; deliveries: number }> {
  const logCutoff = isoNow(now - DELIVERY_LOG_DAYS * 86_400_000);
  const attempts = await db
    .deleteFrom('webhook_attempts')
    .where('attempted_at', '<', logCutoff)
    .executeTakeFirst();
  const deliveries = await db
    .deleteFrom('webhook_deliveries')
    .where('status', '!=', 'pending')
    .where('updated_at', '<', logCutoff)
    .executeTakeFirst();
  return { attempts: Number(attempts.numDeletedRows), deliveries: Number(deliveries.numDeletedRows) };
}

/** The webhooks' housekeeping: the delivery log. */
export const jobs: readonly HousekeepingJob[] = [
  { name: 'webhooks', run: (db, now) => pruneDeliveryLog(db, now) },
];
