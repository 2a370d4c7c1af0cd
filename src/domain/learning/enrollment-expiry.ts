import { SYSTEM_ACTOR } from '../../events/context.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db } from '../../store/database.ts';
import { isoNow, nowMs } from '../../store/time.ts';
import { enrollmentEventData } from './learning-events.ts';

const SWEEP = 'enrollment.expired';

/**
 * Records `enrollment.expired` for every enrollment whose expiry passed since the last sweep.
 * Expiry is time passing, not a write, so housekeeping looks for it: the sweep remembers how far
 * it looked (event_sweeps) and moves that mark by compare-and-set in the same transaction as the
 * events, so with several instances exactly one records each expiry. The first sweep only sets
 * the mark: expiries from before events existed are history, not news.
 */
export async function recordExpiredEnrollments(db: Db, now: number = nowMs()): Promise<number> {
  const until = isoNow(now);
  const mark = await db
    .selectFrom('event_sweeps')
    .select('swept_until')
    .where('name', '=', SWEEP)
    .executeTakeFirst();
  if (!mark) {
    await db
      .insertInto('event_sweeps')
      .values({ name: SWEEP, swept_until: until })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    return 0;
  }
  if (mark.swept_until >= until) return 0;
  return db.transaction().execute(async (tx) => {
    const moved = await tx
      .updateTable('event_sweeps')
      .set({ swept_until: until })
      .where('name', '=', SWEEP)
      .where('swept_until', '=', mark.swept_until)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return 0;
    const rows = await tx
      .selectFrom('enrollments')
      .selectAll()
      .where('expires_at', '>', mark.swept_until)
      .where('expires_at', '<=', until)
      .orderBy('id')
      .execute();
    for (const r of rows) {
      const facts = {
        id: r.id,
        userId: r.user_id,
        courseId: r.course_id,
        source: r.source,
        expiresAt: r.expires_at,
        progressPercent: r.progress_percent,
        completedAt: r.completed_at,
        lastLectureId: r.last_lecture_id,
        lastPositionSeconds: r.last_position_seconds,
      };
      await recordEvent(tx, r.school_id, 'enrollment.expired', enrollmentEventData(facts), {
        actor: SYSTEM_ACTOR,
        occurredAt: r.expires_at ?? until,
      });
    }
    return rows.length;
  });
}
