import type { z } from 'zod';
import { problem } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { parseValid, withTransaction } from '../kernel/checks.ts';
import { type Enrollment, findEnrollmentOf, getEnrollment, LectureProgressFields } from './enrollments.ts';
import { recordProgressEvents } from './learning-events.ts';
import { holdCourseShared, type LectureProgress, saveLectureProgress } from './lecture-progress.ts';
import { mayComplete } from './quizzes.ts';

/**
 * Recording a member's progress in a lecture: the enrollment rules (enrolled, access running)
 * and the quiz rule (a quiz is completed by passing it) around saveLectureProgress.
 */

/**
 * A lecture of the school and its course, with the course held for progress (holdCourseShared):
 * read again once held, because a curriculum change that held the course first may have deleted
 * it. Undefined when the school has no such lecture (or no longer has it).
 */
async function heldLecture(tx: Tx, schoolId: string, lectureId: string) {
  const find = () =>
    tx
      .selectFrom('lectures')
      .select(['id', 'course_id', 'type', 'body'])
      .where('school_id', '=', schoolId)
      .where('id', '=', lectureId)
      .executeTakeFirst();
  const seen = await find();
  if (!seen || !(await holdCourseShared(tx, schoolId, seen.course_id))) return undefined;
  return find();
}

/**
 * Records where a member is in a lecture. The member must be enrolled in the lecture's course
 * (403 `not_enrolled`) with access not expired (403 `access_expired`). A lecture once completed
 * stays completed (re-watching does not undo it). A quiz is completed only with answers that pass
 * it (422 `quiz_not_passed`, quizzes.ts#mayComplete). Progress is completed lectures over all
 * lectures of the course; reaching 100 % stamps completedAt (lecture-progress.ts).
 */
export async function recordLectureProgress(
  db: Db | Tx,
  schoolId: string,
  userId: string,
  input: z.input<typeof LectureProgressFields> & { lectureId: string },
): Promise<{ enrollment: Enrollment; lecture: LectureProgress }> {
  const { positionSeconds: position, completed, answers } = parseValid(LectureProgressFields, input);
  return withTransaction(db, async (tx) => {
    const lecture = await heldLecture(tx, schoolId, input.lectureId);
    if (!lecture) {
      throw problem('lecture_not_found', { detail: 'No such lecture.' });
    }
    const enrollment = await findEnrollmentOf(tx, schoolId, userId, lecture.course_id);
    if (!enrollment) {
      throw problem('not_enrolled', {
        detail: 'You are not enrolled in the course of this lecture.',
      });
    }
    if (!enrollment.active) {
      throw problem('access_expired', {
        detail: `Access to this course ended at ${enrollment.expiresAt}.`,
      });
    }
    if (completed && !mayComplete(lecture, answers).ok) {
      throw problem('quiz_not_passed', {
        detail: 'Answer the quiz to complete it: every question must be answered right.',
      });
    }
    const progress = await saveLectureProgress(
      tx,
      enrollment.id,
      { id: lecture.id, courseId: lecture.course_id },
      position,
      completed,
    );
    const after = await getEnrollment(tx, schoolId, enrollment.id);
    await recordProgressEvents(tx, schoolId, enrollment, after, progress);
    return { enrollment: after, lecture: progress };
  });
}
