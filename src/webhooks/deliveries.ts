import { sql } from 'kysely';
import { newId } from '../crypto/ids.ts';
import type { Db, Tx } from '../store/database.ts';

/**
 * One delivery of an event to one enabled endpoint, whatever it subscribed to (a test event); none
 * when the endpoint is not there or not enabled.
 */
export async function queueDelivery(
  tx: Db | Tx,
  schoolId: string,
  endpointId: string,
  eventId: string,
  now: string,
): Promise<void> {
  await sql`insert into webhook_deliveries
      (id, school_id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at, updated_at)
      select ${newId('whd')}, school_id, id, ${eventId}, 'pending', 0, ${now}, ${now}, ${now}
        from webhook_endpoints where school_id = ${schoolId} and id = ${endpointId} and enabled = 1`.execute(
    tx,
  );
}
