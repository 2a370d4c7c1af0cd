import { sql } from 'kysely';
import { problem } from '../errors/problem-error.ts';
import type { Db, Tx } from '../store/database.ts';
import { isoNow } from '../store/time.ts';
import { Checks, withTransaction } from './checks.ts';
import { type Enrollment, findEnrollmentOf, getEnrollment } from './enrollments.ts';

/** One lecture's progress inside an enrollment. */
export interface LectureProgress {
  lectureId: string;
  positionSeconds: number;
  completed: boolean;
  completedAt: string | null;
  updatedAt: string;
}

/** Per-lecture progress of an enrollment, in curriculum order. */
export async function listLectureProgress(
  db: Db | Tx,
  schoolId: string,
  enrollmentId: string,
): Promise<LectureProgress[]> {
  await getEnrollment(db, schoolId, enrollmentId);
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
  return rows.map((r) => ({
    lectureId: r.lecture_id,
    positionSeconds: r.position_seconds,
    completed: r.completed_at !== null,
    completedAt: r.completed_at,
    updatedAt: r.updated_at,
  }));
}

/**
 * Records where a member is in a lecture. The member must be enrolled in the lecture's course
 * (403 `not_enrolled`) with access not expired (403 `access_expired`). A lecture once completed
 * stays completed (re-watching does not undo it). Progress is completed lectures over all
 * lectures of the course; reaching 100 % stamps completedAt.
 */
export async function recordLectureProgress(
  db: Db | Tx,
  schoolId: string,
  userId: string,
  input: { lectureId: string; positionSeconds: number; completed?: boolean },
): Promise<{ enrollment: Enrollment; lecture: LectureProgress }> {
  const c = new Checks();
  const position = c.int('positionSeconds', input.positionSeconds, 0, 1_000_000);
  if (input.completed !== undefined && typeof input.completed !== 'boolean')
    c.fail('completed', 'must be a boolean');
  c.done();
  return withTransaction(db, async (tx) => {
    const lecture = await tx
      .selectFrom('lectures')
      .select(['id', 'course_id'])
      .where('school_id', '=', schoolId)
      .where('id', '=', input.lectureId)
      .executeTakeFirst();
    if (!lecture) {
      throw problem('lecture_not_found', { detail: 'No such lecture.' });
    }
    const enrollment = await findEnrollmentOf(tx, schoolId, userId, lecture.course_id);
    if (!enrollment) {
      throw problem('not_enrolled', {
        detail: 'You are not enrolled in the course of this lecture.',
      });
    }
    const now = isoNow();
    if (!enrollment.active) {
      throw problem('access_expired', {
        detail: `Access to this course ended at ${enrollment.expiresAt}.`,
      });
    }
    const completedAt = input.completed ? now : null;
    await tx
      .insertInto('lecture_progress')
      .values({
        enrollment_id: enrollment.id,
        lecture_id: lecture.id,
        position_seconds: position,
        completed_at: completedAt,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.columns(['enrollment_id', 'lecture_id']).doUpdateSet({
          position_seconds: position,
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
        last_position_seconds: position,
        last_watched_at: now,
        updated_at: now,
      })
      .where('id', '=', enrollment.id)
      .execute();
    await recomputeProgress(tx, enrollment.id, lecture.course_id, now);
    const progress = await tx
      .selectFrom('lecture_progress')
      .selectAll()
      .where('enrollment_id', '=', enrollment.id)
      .where('lecture_id', '=', lecture.id)
      .executeTakeFirstOrThrow();
    return {
      enrollment: await getEnrollment(tx, schoolId, enrollment.id),
      lecture: {
        lectureId: progress.lecture_id,
        positionSeconds: progress.position_seconds,
        completed: progress.completed_at !== null,
        completedAt: progress.completed_at,
        updatedAt: progress.updated_at,
      },
    };
  });
}

/**
 * Recomputes progress_percent (floor of completed / total lectures × 100, so 100 means all)
 * and completed_at (set when reaching 100, cleared if the course grew) for one enrollment.
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
    .executeTakeFirstOrThrow();
  const completedAt = percent === 100 ? (current.completed_at ?? now) : null;
  if (current.progress_percent !== percent || current.completed_at !== completedAt) {
    await db
      .updateTable('enrollments')
      .set({ progress_percent: percent, completed_at: completedAt, updated_at: now })
      .where('id', '=', enrollmentId)
      .execute();
  }
}

/** Recomputes every enrollment of a course (after its lectures changed). */
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
    .execute();
  const now = isoNow();
  for (const r of rows) await recomputeProgress(db, r.id, courseId, now);
}
