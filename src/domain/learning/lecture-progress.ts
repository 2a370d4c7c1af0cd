import { sql } from 'kysely';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { lockRow } from '../kernel/checks.ts';
import type { LectureProgressTable } from '../kernel/tables.ts';

/**
 * Per-lecture progress rows and the course progress computed from them. The enrollment rules
 * around them (who may record progress, in which enrollment) live in record-progress.ts, which
 * builds on this module; this one never imports it.
 */

/**
 * A curriculum change holds its course row exclusively (catalog/curriculum-rows.ts#lockCourse)
 * and then recomputes every enrollment of the course. A change to one enrollment of the course
 * (deleting it, recording its progress) first holds the same row shared, so each waits for the
 * other instead of interleaving; such changes never wait for one another. Otherwise, on
 * PostgreSQL, an enrollment deleted mid-recomputation would vanish between the listing and its
 * update; a change to one enrollment and a lecture's deletion (its progress rows, then every
 * enrollment's row) would take the same rows in opposite order and deadlock; and a recomputation
 * could overwrite progress recorded meanwhile with a share counted before it. False when the
 * school has no such course.
 */
export function holdCourseShared(tx: Tx, schoolId: string, courseId: string): Promise<boolean> {
  return lockRow(tx, 'courses', schoolId, { id: courseId }, { shared: true });
}

/** One lecture's progress inside an enrollment. */
export interface LectureProgress {
  lectureId: string;
  positionSeconds: number;
  completed: boolean;
  completedAt: string | null;
  updatedAt: string;
}

type ProgressRow = Omit<LectureProgressTable, 'enrollment_id'>;

/** A lecture_progress row as the domain shows it: completed once completedAt is set. */
export function toLectureProgress(r: ProgressRow): LectureProgress {
  return {
    lectureId: r.lecture_id,
    positionSeconds: r.position_seconds,
    completed: r.completed_at !== null,
    completedAt: r.completed_at,
    updatedAt: r.updated_at,
  };
}

/** Per-lecture progress of an enrollment (the caller checked it is the school's), in curriculum order. */
export async function progressOfEnrollment(db: Db | Tx, enrollmentId: string): Promise<LectureProgress[]> {
  const rows = await db
    .selectFrom('lecture_progress')
    .innerJoin('lectures', 'lectures.id', 'lecture_progress.lecture_id')
    .innerJoin('sections', 'sections.id', 'lectures.section_id')
    .select([
      'lecture_progress.lecture_id',
      'lecture_progress.position_seconds',
      'lecture_progress.completed_at',
      'lecture_progress.updated_at',
    ])
    .where('lecture_progress.enrollment_id', '=', enrollmentId)
    .orderBy('sections.position')
    .orderBy('lectures.position')
    .execute();
  return rows.map(toLectureProgress);
}

/**
 * Saves where the member is in a lecture of the enrollment's course (the caller checked the
 * enrollment may record it). A lecture once completed stays completed (re-watching does not
 * undo it); the enrollment's last-watched fields and course progress follow.
 */
export async function saveLectureProgress(
  tx: Tx,
  enrollmentId: string,
  lecture: { id: string; courseId: string },
  positionSeconds: number,
  completed: boolean | undefined,
): Promise<LectureProgress> {
  const now = isoNow();
  const completedAt = completed ? now : null;
  await tx
    .insertInto('lecture_progress')
    .values({
      enrollment_id: enrollmentId,
      lecture_id: lecture.id,
      position_seconds: positionSeconds,
      completed_at: completedAt,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['enrollment_id', 'lecture_id']).doUpdateSet({
        position_seconds: positionSeconds,
        // Keep the first completion; `completed: false` never un-completes.
        completed_at: sql<string | null>`coalesce(lecture_progress.completed_at, ${completedAt})`,
        updated_at: now,
      }),
    )
    .execute();
  await tx
    .updateTable('enrollments')
    .set({
      last_lecture_id: lecture.id,
      last_position_seconds: positionSeconds,
      last_watched_at: now,
      updated_at: now,
    })
    .where('id', '=', enrollmentId)
    .execute();
  await recomputeProgress(tx, enrollmentId, lecture.courseId, now);
  const progress = await tx
    .selectFrom('lecture_progress')
    .selectAll()
    .where('enrollment_id', '=', enrollmentId)
    .where('lecture_id', '=', lecture.id)
    .executeTakeFirstOrThrow();
  return toLectureProgress(progress);
}

/**
 * Recomputes progress_percent (floor of completed / total lectures × 100, so 100 means all)
 * and completed_at (set when reaching 100, cleared if the course grew) for one enrollment. One
 * that is gone by now (its course deleted, say) has nothing left to recompute.
 */
async function recomputeProgress(
  db: Db | Tx,
  enrollmentId: string,
  courseId: string,
  now: string,
): Promise<void> {
  const total = await db
    .selectFrom('lectures')
    .select(sql<number>`count(*)`.as('n'))
    .where('course_id', '=', courseId)
    .executeTakeFirstOrThrow();
  const done = await db
    .selectFrom('lecture_progress')
    .innerJoin('lectures', 'lectures.id', 'lecture_progress.lecture_id')
    .select(sql<number>`count(*)`.as('n'))
    .where('lecture_progress.enrollment_id', '=', enrollmentId)
    .where('lectures.course_id', '=', courseId)
    .where('lecture_progress.completed_at', 'is not', null)
    .executeTakeFirstOrThrow();
  const totalN = Number(total.n);
  const percent = totalN === 0 ? 0 : Math.floor((Number(done.n) * 100) / totalN);
  const current = await db
    .selectFrom('enrollments')
    .select(['progress_percent', 'completed_at'])
    .where('id', '=', enrollmentId)
    .executeTakeFirst();
  if (!current) return;
  const completedAt = percent === 100 ? (current.completed_at ?? now) : null;
  if (current.progress_percent !== percent || current.completed_at !== completedAt) {
    await db
      .updateTable('enrollments')
      .set({ progress_percent: percent, completed_at: completedAt, updated_at: now })
      .where('id', '=', enrollmentId)
      .execute();
  }
}

/**
 * Recomputes every enrollment of a course (after its lectures changed), in id order (one stable
 * order for taking their rows). The caller holds the course row (lockCourse), so no enrollment
 * of the course changes meanwhile (holdCourseShared).
 */
export async function recomputeCourseProgress(
  db: Db | Tx,
  schoolId: string,
  courseId: string,
): Promise<void> {
  const rows = await db
    .selectFrom('enrollments')
    .select('id')
    .where('school_id', '=', schoolId)
    .where('course_id', '=', courseId)
    .orderBy('id')
    .execute();
  const now = isoNow();
  for (const r of rows) await recomputeProgress(db, r.id, courseId, now);
}
