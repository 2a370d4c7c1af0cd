import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { type ProblemError, problem, problems } from '../../errors/problem-error.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Db, Tx } from '../../store/database.ts';
import type { Database } from '../../store/schema.ts';
import { isoNow } from '../../store/time.ts';
import { deleteOwned, isUniqueViolation, parseValid, withTransaction } from '../kernel/checks.ts';
import { Instant } from '../kernel/fields.ts';
import { countRows, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { EnrollmentsTable } from '../kernel/tables.ts';
import { ensureMembership } from '../school/memberships.ts';
import { enrollmentEventData } from './learning-events.ts';
import { holdCourseShared, type LectureProgress, progressOfEnrollment } from './lecture-progress.ts';

export const ENROLLMENT_SOURCES = ['manual', 'order', 'membership_plan', 'import'] as const;
type EnrollmentSource = (typeof ENROLLMENT_SOURCES)[number];
export const ENROLLMENT_STATES = ['active', 'expired', 'completed', 'in_progress', 'not_started'] as const;
export type EnrollmentState = (typeof ENROLLMENT_STATES)[number];

/**
 * An enrollment as its member sees it: access, progress, where they left off, the course named
 * (what the Account API and the member tools show). The full Enrollment is a superset.
 */
export interface EnrollmentSummary {
  id: string;
  courseId: string;
  course: { id: string; slug: string; title: string };
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
}

/** A person's access to one course and how far they got, with the admin columns. */
export interface Enrollment extends EnrollmentSummary {
  schoolId: string;
  userId: string;
  user: { id: string; name: string; email: string };
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

/** The columns a summary is mapped from: the enrollment's own and its course's slug and title. */
export type EnrollmentSummaryRow = Pick<
  EnrollmentsTable,
  | 'id'
  | 'course_id'
  | 'enrolled_at'
  | 'expires_at'
  | 'progress_percent'
  | 'completed_at'
  | 'last_lecture_id'
  | 'last_position_seconds'
  | 'last_watched_at'
> & { course_slug: string; course_title: string };

type Row = EnrollmentsTable & EnrollmentSummaryRow & { user_name: string; user_email: string };

// Access and progress, the same in both shapes. The one `active` rule: lifetime (no expiry) or
// expiring after `now`; enrollmentStateCondition says the same in SQL.
function accessAndProgress(r: EnrollmentSummaryRow, now: string) {
  return {
    enrolledAt: r.enrolled_at,
    expiresAt: r.expires_at,
    lifetime: r.expires_at === null,
    active: r.expires_at === null || r.expires_at > now,
    progressPercent: r.progress_percent,
    completedAt: r.completed_at,
    lastLectureId: r.last_lecture_id,
    lastPositionSeconds: r.last_position_seconds,
    lastWatchedAt: r.last_watched_at,
  };
}

/** An enrollment row (narrow or full) as its member sees it, `active` as of `now`. */
export function toEnrollmentSummary(r: EnrollmentSummaryRow, now = isoNow()): EnrollmentSummary {
  return {
    id: r.id,
    courseId: r.course_id,
    course: { id: r.course_id, slug: r.course_slug, title: r.course_title },
    ...accessAndProgress(r, now),
  };
}

function toEnrollment(r: Row, now = isoNow()): Enrollment {
  return {
    id: r.id,
    schoolId: r.school_id,
    userId: r.user_id,
    courseId: r.course_id,
    course: { id: r.course_id, title: r.course_title, slug: r.course_slug },
    user: { id: r.user_id, name: r.user_name, email: r.user_email },
    ...accessAndProgress(r, now),
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

/**
 * What each enrollment state means, as one SQL condition: every list that filters by state (the
 * admin API's, the member's own) applies this, so the states mean the same everywhere.
 */
export function enrollmentStateCondition(
  eb: ExpressionBuilder<Database, 'enrollments'>,
  state: EnrollmentState,
  now: string,
): Expression<SqlBool> {
  switch (state) {
    case 'active':
      return eb.or([eb('enrollments.expires_at', 'is', null), eb('enrollments.expires_at', '>', now)]);
    case 'expired':
      return eb('enrollments.expires_at', '<=', now);
    case 'completed':
      return eb('enrollments.completed_at', 'is not', null);
    case 'in_progress':
      return eb.and([eb('enrollments.progress_percent', '>', 0), eb('enrollments.completed_at', 'is', null)]);
    case 'not_started':
      return eb('enrollments.progress_percent', '=', 0);
  }
}

const StateFilter = z.object({ state: z.enum(ENROLLMENT_STATES).optional() });

/** A state filter: none, or one of ENROLLMENT_STATES (422 `validation_failed` otherwise). */
export function checkEnrollmentState(state: string | undefined): EnrollmentState | undefined {
  return parseValid(StateFilter, { state }).state;
}

/**
 * An enrollment's own fields as a payment provider, an import or an operator sets them. The
 * member and the course are rules over the database and stay in code.
 */
export const EnrollmentFields = z.object({
  /** Null (the default) is lifetime access. */
  expiresAt: Instant.nullable().optional(),
  source: z.enum(ENROLLMENT_SOURCES).optional(),
  enrolledAt: Instant.optional(),
});

/** Where a member is in a lecture. */
export const LectureProgressFields = z.object({
  positionSeconds: z.number().int().min(0).max(1_000_000),
  completed: z.boolean().optional(),
  /** A quiz's answers: the chosen choice's index per question, in order (null: unanswered). */
  answers: z.array(z.number().int().min(0).max(999).nullable()).max(100).optional(),
});

function filtered(db: Db | Tx, schoolId: string, filter: EnrollmentFilter) {
  let q = baseQuery(db, schoolId);
  if (filter.courseId) q = q.where('enrollments.course_id', '=', filter.courseId);
  if (filter.userId) q = q.where('enrollments.user_id', '=', filter.userId);
  if (filter.state) {
    const state = filter.state;
    const now = isoNow();
    q = q.where((eb) => enrollmentStateCondition(eb, state, now));
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
  checkEnrollmentState(filter.state);
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
async function findEnrollment(db: Db | Tx, schoolId: string, id: string): Promise<Enrollment | undefined> {
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

function alreadyEnrolled(): ProblemError {
  return problem('already_enrolled', {
    detail: 'The user is already enrolled in this course.',
  });
}

/**
 * Enrolls a user in a course of the school. expiresAt null (the default) is lifetime access.
 * A user without a role at the school becomes its student. Twice is a 409 `already_enrolled`.
 */
export async function enroll(
  db: Db | Tx,
  schoolId: string,
  input: z.input<typeof EnrollmentFields> & { userId: string; courseId: string },
): Promise<Enrollment> {
  const v = parseValid(EnrollmentFields, input);
  const expiresAt = v.expiresAt ?? null;
  const source = v.source ?? 'manual';
  const enrolledAt = v.enrolledAt ?? isoNow();
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
    if (await findEnrollmentOf(tx, schoolId, input.userId, input.courseId)) throw alreadyEnrolled();
    // Someone with no role at the school becomes a student; a concurrent enrollment or invite of
    // the same person may make the membership first, and then it stays as that one made it.
    await ensureMembership(tx, schoolId, input.userId, ['student']);
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
      .execute()
      .catch((err: unknown) => {
        // A concurrent enrollment committed between the check and the insert.
        throw isUniqueViolation(err) ? alreadyEnrolled() : err;
      });
    const enrollment = await getEnrollment(tx, schoolId, id);
    await recordEvent(tx, schoolId, 'enrollment.created', enrollmentEventData(enrollment));
    return enrollment;
  });
}

/**
 * The courses a person is enrolled in on joining through an invitation: lifetime access to each
 * that still exists, skipping one they already have.
 */
export async function enrollOnJoining(
  tx: Tx,
  schoolId: string,
  userId: string,
  courseIds: readonly string[],
): Promise<void> {
  for (const courseId of courseIds) {
    const course = await tx
      .selectFrom('courses')
      .select('id')
      .where('school_id', '=', schoolId)
      .where('id', '=', courseId)
      .executeTakeFirst();
    if (!course || (await findEnrollmentOf(tx, schoolId, userId, courseId))) continue;
    await enroll(tx, schoolId, { userId, courseId, source: 'manual' });
  }
}

/** Sets when access ends; null makes it lifetime. */
export async function setEnrollmentExpiry(
  db: Db | Tx,
  schoolId: string,
  id: string,
  expiresAt: string | null,
): Promise<Enrollment> {
  const value = parseValid(EnrollmentFields.pick({ expiresAt: true }), { expiresAt }).expiresAt ?? null;
  return withTransaction(db, async (tx) => {
    const before = await getEnrollment(tx, schoolId, id);
    await tx
      .updateTable('enrollments')
      .set({ expires_at: value, updated_at: isoNow() })
      .where('school_id', '=', schoolId)
      .where('id', '=', id)
      .execute();
    const after = await getEnrollment(tx, schoolId, id);
    // Ended by hand now: the expiry sweep (events/expiry-sweep.ts) only sees future expiries pass.
    if (before.active && !after.active) {
      await recordEvent(tx, schoolId, 'enrollment.expired', enrollmentEventData(after));
    }
    return after;
  });
}

/**
 * Removes an enrollment and its progress, after any curriculum change of its course in flight
 * (holdCourseShared says why). 404 when the school has no such enrollment, or no longer has it.
 */
export async function unenroll(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await withTransaction(db, async (tx) => {
    const row = await tx
      .selectFrom('enrollments')
      .select('course_id')
      .where('school_id', '=', schoolId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (row) await holdCourseShared(tx, schoolId, row.course_id);
    await deleteOwned(tx, 'enrollments', schoolId, id, 'enrollment');
  });
}

/** Per-lecture progress of an enrollment of the school, in curriculum order; 404 otherwise. */
export async function listLectureProgress(
  db: Db | Tx,
  schoolId: string,
  enrollmentId: string,
): Promise<LectureProgress[]> {
  await getEnrollment(db, schoolId, enrollmentId);
  return progressOfEnrollment(db, enrollmentId);
}
