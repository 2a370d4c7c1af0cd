import { sql } from 'kysely';
import { newId } from '../crypto/ids.ts';
import { ProblemError, problems } from '../errors/problem-error.ts';
import type { Db, Tx } from '../store/database.ts';
import { isoNow } from '../store/time.ts';
import { Checks, withTransaction } from './checks.ts';
import { addRoles, findMembership } from './memberships.ts';
import { countRows, type Page, type PageParams, paginate } from './pagination.ts';
import type { EnrollmentsTable } from './tables.ts';

export const ENROLLMENT_SOURCES = ['manual', 'order', 'membership_plan', 'import'] as const;
export type EnrollmentSource = (typeof ENROLLMENT_SOURCES)[number];
export const ENROLLMENT_STATES = ['active', 'expired', 'completed', 'in_progress', 'not_started'] as const;
export type EnrollmentState = (typeof ENROLLMENT_STATES)[number];

/** A person's access to one course and how far they got. */
export interface Enrollment {
  id: string;
  schoolId: string;
  userId: string;
  courseId: string;
  course: { id: string; title: string; slug: string };
  user: { id: string; name: string; email: string };
  enrolledAt: string;
  /** Null means lifetime access. */
  expiresAt: string | null;
  lifetime: boolean;
  /** False once expiresAt has passed. */
  active: boolean;
  progressPercent: number;
  completedAt: string | null;
  lastLectureId: string | null;
  lastPositionSeconds: number | null;
  lastWatchedAt: string | null;
  source: EnrollmentSource;
  createdAt: string;
  updatedAt: string;
}

export interface EnrollmentFilter {
  courseId?: string;
  userId?: string;
  /** active/expired by expiry; completed/in_progress/not_started by progress. */
  state?: EnrollmentState;
}

/** One lecture's progress inside an enrollment. */
export interface LectureProgress {
  lectureId: string;
  positionSeconds: number;
  completed: boolean;
  completedAt: string | null;
  updatedAt: string;
}

type Row = EnrollmentsTable & {
  course_title: string;
  course_slug: string;
  user_name: string;
  user_email: string;
};

function toEnrollment(r: Row, now = isoNow()): Enrollment {
  return {
    id: r.id,
    schoolId: r.school_id,
    userId: r.user_id,
    courseId: r.course_id,
    course: { id: r.course_id, title: r.course_title, slug: r.course_slug },
    user: { id: r.user_id, name: r.user_name, email: r.user_email },
    enrolledAt: r.enrolled_at,
    expiresAt: r.expires_at,
    lifetime: r.expires_at === null,
    active: r.expires_at === null || r.expires_at > now,
    progressPercent: r.progress_percent,
    completedAt: r.completed_at,
    lastLectureId: r.last_lecture_id,
    lastPositionSeconds: r.last_position_seconds,
    lastWatchedAt: r.last_watched_at,
    source: r.source,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function baseQuery(db: Db | Tx, schoolId: string) {
  return db
    .selectFrom('enrollments')
    .innerJoin('courses', 'courses.id', 'enrollments.course_id')
    .innerJoin('users', 'users.id', 'enrollments.user_id')
    .selectAll('enrollments')
    .select([
      'courses.title as course_title',
      'courses.slug as course_slug',
      'users.name as user_name',
      'users.email as user_email',
    ])
    .where('enrollments.school_id', '=', schoolId);
}

function filtered(db: Db | Tx, schoolId: string, filter: EnrollmentFilter) {
  let q = baseQuery(db, schoolId);
  if (filter.courseId) q = q.where('enrollments.course_id', '=', filter.courseId);
  if (filter.userId) q = q.where('enrollments.user_id', '=', filter.userId);
  const now = isoNow();
  switch (filter.state) {
    case 'active':
      q = q.where((eb) =>
        eb.or([eb('enrollments.expires_at', 'is', null), eb('enrollments.expires_at', '>', now)]),
      );
      break;
    case 'expired':
      q = q.where('enrollments.expires_at', '<=', now);
      break;
    case 'completed':
      q = q.where('enrollments.completed_at', 'is not', null);
      break;
    case 'in_progress':
      q = q.where('enrollments.progress_percent', '>', 0).where('enrollments.completed_at', 'is', null);
      break;
    case 'not_started':
      q = q.where('enrollments.progress_percent', '=', 0);
      break;
  }
  return q;
}

/** Enrollments of the school, oldest first, by course, by user and/or by state. */
export async function listEnrollments(
  db: Db | Tx,
  schoolId: string,
  filter: EnrollmentFilter = {},
  page: PageParams = {},
): Promise<Page<Enrollment>> {
  if (filter.state !== undefined) {
    const c = new Checks();
    c.oneOf('state', filter.state, ENROLLMENT_STATES);
    c.done();
  }
  const rows = await paginate(filtered(db, schoolId, filter), page, { table: 'enrollments' });
  const now = isoNow();
  return { data: rows.data.map((r) => toEnrollment(r, now)), next_cursor: rows.next_cursor };
}

/** How many enrollments match (GraphQL totalCount). */
export function countEnrollments(
  db: Db | Tx,
  schoolId: string,
  filter: EnrollmentFilter = {},
): Promise<number> {
  return countRows(filtered(db, schoolId, filter));
}

/** An enrollment of the school by id, or undefined. */
export async function findEnrollment(
  db: Db | Tx,
  schoolId: string,
  id: string,
): Promise<Enrollment | undefined> {
  const row = await baseQuery(db, schoolId).where('enrollments.id', '=', id).executeTakeFirst();
  return row ? toEnrollment(row) : undefined;
}

/** An enrollment of the school by id; 404 otherwise. */
export async function getEnrollment(db: Db | Tx, schoolId: string, id: string): Promise<Enrollment> {
  const found = await findEnrollment(db, schoolId, id);
  if (!found) throw problems.notFound('No such enrollment.');
  return found;
}

/** The user's enrollment in a course of the school, or undefined. */
export async function findEnrollmentOf(
  db: Db | Tx,
  schoolId: string,
  userId: string,
  courseId: string,
): Promise<Enrollment | undefined> {
  const row = await baseQuery(db, schoolId)
    .where('enrollments.user_id', '=', userId)
    .where('enrollments.course_id', '=', courseId)
    .executeTakeFirst();
  return row ? toEnrollment(row) : undefined;
}

/**
 * Enrolls a user in a course of the school. expiresAt null (the default) is lifetime access.
 * A user without a role at the school becomes its student. Twice is a 409 `already_enrolled`.
 */
export async function enroll(
  db: Db | Tx,
  schoolId: string,
  input: {
    userId: string;
    courseId: string;
    expiresAt?: string | null;
    source?: EnrollmentSource;
    enrolledAt?: string;
  },
): Promise<Enrollment> {
  const c = new Checks();
  const expiresAt = c.optionalTimestamp('expiresAt', input.expiresAt);
  const source = input.source === undefined ? 'manual' : c.oneOf('source', input.source, ENROLLMENT_SOURCES);
  const enrolledAt = input.enrolledAt === undefined ? isoNow() : c.timestamp('enrolledAt', input.enrolledAt);
  c.done();
  return withTransaction(db, async (tx) => {
    const course = await tx
      .selectFrom('courses')
      .select('id')
      .where('school_id', '=', schoolId)
      .where('id', '=', input.courseId)
      .executeTakeFirst();
    if (!course) throw problems.notFound('No such course.');
    const user = await tx.selectFrom('users').select('id').where('id', '=', input.userId).executeTakeFirst();
    if (!user) throw problems.notFound('No such user.');
    if (await findEnrollmentOf(tx, schoolId, input.userId, input.courseId)) {
      throw new ProblemError(409, 'already_enrolled', 'Conflict', {
        detail: 'The user is already enrolled in this course.',
      });
    }
    if (!(await findMembership(tx, schoolId, input.userId))) {
      await addRoles(tx, schoolId, input.userId, ['student']);
    }
    const now = isoNow();
    const id = newId('enr');
    await tx
      .insertInto('enrollments')
      .values({
        id,
        school_id: schoolId,
        user_id: input.userId,
        course_id: input.courseId,
        enrolled_at: enrolledAt,
        expires_at: expiresAt,
        progress_percent: 0,
        completed_at: null,
        last_lecture_id: null,
        last_position_seconds: null,
        last_watched_at: null,
        source,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return getEnrollment(tx, schoolId, id);
  });
}

/** Sets when access ends; null makes it lifetime. */
export async function setEnrollmentExpiry(
  db: Db | Tx,
  schoolId: string,
  id: string,
  expiresAt: string | null,
): Promise<Enrollment> {
  const c = new Checks();
  const value = c.optionalTimestamp('expiresAt', expiresAt);
  c.done();
  await getEnrollment(db, schoolId, id);
  await db
    .updateTable('enrollments')
    .set({ expires_at: value, updated_at: isoNow() })
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .execute();
  return getEnrollment(db, schoolId, id);
}

/** Removes an enrollment and its progress. */
export async function unenroll(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  const result = await db
    .deleteFrom('enrollments')
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw problems.notFound('No such enrollment.');
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
      throw new ProblemError(404, 'lecture_not_found', 'Not Found', { detail: 'No such lecture.' });
    }
    const enrollment = await findEnrollmentOf(tx, schoolId, userId, lecture.course_id);
    if (!enrollment) {
      throw new ProblemError(403, 'not_enrolled', 'Forbidden', {
        detail: 'You are not enrolled in the course of this lecture.',
      });
    }
    const now = isoNow();
    if (!enrollment.active) {
      throw new ProblemError(403, 'access_expired', 'Forbidden', {
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
