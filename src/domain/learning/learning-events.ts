import { recordEvent } from '../../events/outbox.ts';
import type { EventDataOf } from '../../events/payloads.ts';
import type { Tx } from '../../store/database.ts';

/** The enrollment fields every learning event carries (structural, so no import cycle). */
interface EnrollmentFacts {
  id: string;
  userId: string;
  courseId: string;
  expiresAt: string | null;
  progressPercent: number;
  completedAt: string | null;
  lastLectureId: string | null;
  lastPositionSeconds: number | null;
}

/** An enrollment's facts with how it came about: what the enrollment events carry. */
type EnrollmentRecord = EnrollmentFacts & { source: string };

/** The data of enrollment events: who, which course, from where, how far. */
export function enrollmentEventData(e: EnrollmentRecord): EventDataOf<'enrollment.created'> {
  return {
    enrollment_id: e.id,
    user_id: e.userId,
    course_id: e.courseId,
    source: e.source,
    expires_at: e.expiresAt,
    progress_percent: e.progressPercent,
    completed_at: e.completedAt,
  };
}

/**
 * The events of one recorded position: always `lecture.progress_recorded`; `lecture.completed`
 * when this call completed the lecture; `enrollment.completed` when it completed the course.
 * Each carries the enrollment's progress percent and resume position, so a consumer never has to
 * join two events.
 */
export async function recordProgressEvents(
  tx: Tx,
  schoolId: string,
  before: EnrollmentFacts,
  after: EnrollmentRecord,
  lecture: { lectureId: string; positionSeconds: number; completedAt: string | null; updatedAt: string },
): Promise<void> {
  const data: EventDataOf<'lecture.progress_recorded'> = {
    enrollment_id: after.id,
    user_id: after.userId,
    course_id: after.courseId,
    lecture_id: lecture.lectureId,
    position_seconds: lecture.positionSeconds,
    lecture_completed: lecture.completedAt !== null,
    progress_percent: after.progressPercent,
    resume_lecture_id: after.lastLectureId,
    resume_position_seconds: after.lastPositionSeconds,
  };
  await recordEvent(tx, schoolId, 'lecture.progress_recorded', data);
  // A first completion stamps completed_at with the same instant as updated_at (lecture-progress.ts).
  if (lecture.completedAt !== null && lecture.completedAt === lecture.updatedAt) {
    await recordEvent(tx, schoolId, 'lecture.completed', data);
  }
  if (before.completedAt === null && after.completedAt !== null) {
    await recordEvent(tx, schoolId, 'enrollment.completed', enrollmentEventData(after));
  }
}
