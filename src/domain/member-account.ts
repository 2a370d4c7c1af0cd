import { ProblemError } from '../errors/problem-error.ts';
import type { Db, Tx } from '../store/database.ts';
import { isoNow } from '../store/time.ts';
import { Checks, flag } from './checks.ts';
import type { Lecture, Section } from './curriculum.ts';
import {
  countEnrollments,
  type Enrollment,
  type EnrollmentState,
  listEnrollments,
  recordLectureProgress,
} from './enrollments.ts';
import {
  cancelRegistration,
  countRegistrations,
  type EventRegistration,
  findRegistrationOf,
  listUserRegistrations,
  registerForEvent,
} from './event-registrations.ts';
import { type Event, getEvent } from './events.ts';
import type { LectureProgress } from './lecture-progress.ts';
import { getMemberProfile, type MemberProfile, type MemberScope } from './member-reads.ts';
import { countOrders, listOrders, type Order } from './orders.ts';
import { countRows, type Page, type PageParams, paginate } from './pagination.ts';
import type { CoursesTable, MembershipPlansTable, SubscriptionsTable } from './tables.ts';
import { updateUserName } from './users.ts';

/**
 * One member's own data at one school: what the Account API and the member MCP tools read and
 * write. Every function takes the member's scope (from the access token; see member-reads.ts)
 * and reads only rows of that school and that user, so isolation holds by construction,
 * whatever the caller passes.
 */

/** The member's enrollments with their course, oldest first, optionally by state. */
export function listMemberEnrollments(
  db: Db | Tx,
  scope: MemberScope,
  page: PageParams,
  state?: EnrollmentState,
): Promise<Page<Enrollment>> {
  return listEnrollments(db, scope.schoolId, { userId: scope.userId, state }, page);
}

/** How many enrollments the member has (by state). */
export function countMemberEnrollments(
  db: Db | Tx,
  scope: MemberScope,
  state?: EnrollmentState,
): Promise<number> {
  return countEnrollments(db, scope.schoolId, { userId: scope.userId, state });
}

/** The member's orders with their items, newest first. */
export function listMemberOrders(db: Db | Tx, scope: MemberScope, page: PageParams): Promise<Page<Order>> {
  return listOrders(db, scope.schoolId, { userId: scope.userId }, page);
}

/** How many orders the member has. */
export function countMemberOrders(db: Db | Tx, scope: MemberScope): Promise<number> {
  return countOrders(db, scope.schoolId, { userId: scope.userId });
}

/** The member's event registrations, oldest first. */
export function listMemberEventRegistrations(
  db: Db | Tx,
  scope: MemberScope,
  page: PageParams,
): Promise<Page<EventRegistration>> {
  return listUserRegistrations(db, scope.schoolId, scope.userId, page);
}

/** How many event registrations the member has. */
export function countMemberEventRegistrations(db: Db | Tx, scope: MemberScope): Promise<number> {
  return countRegistrations(db, scope.schoolId, { userId: scope.userId });
}

/** A subscription of the member with its plan. */
export interface MemberSubscription {
  id: string;
  status: SubscriptionsTable['status'];
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
  trialEndsAt: string | null;
  createdAt: string;
  plan: {
    id: string;
    name: string;
    description: string;
    interval: MembershipPlansTable['interval'];
    priceAmount: number;
    currency: string;
  };
}

function subscriptionQuery(db: Db | Tx, scope: MemberScope) {
  return db
    .selectFrom('subscriptions')
    .innerJoin('membership_plans', 'membership_plans.id', 'subscriptions.plan_id')
    .where('subscriptions.school_id', '=', scope.schoolId)
    .where('subscriptions.user_id', '=', scope.userId);
}

/** The member's membership-plan subscriptions with their plan, newest first. */
export async function listMemberSubscriptions(
  db: Db | Tx,
  scope: MemberScope,
  page: PageParams,
): Promise<Page<MemberSubscription>> {
  const rows = await paginate(
    subscriptionQuery(db, scope)
      .selectAll('subscriptions')
      .select([
        'membership_plans.name as plan_name',
        'membership_plans.description as plan_description',
        'membership_plans.interval as plan_interval',
        'membership_plans.price_amount as plan_price_amount',
        'membership_plans.currency as plan_currency',
      ]),
    page,
    { table: 'subscriptions', direction: 'desc' },
  );
  return {
    next_cursor: rows.next_cursor,
    data: rows.data.map((r) => ({
      id: r.id,
      status: r.status,
      currentPeriodEnd: r.current_period_end,
      cancelAtPeriodEnd: flag(r.cancel_at_period_end),
      canceledAt: r.canceled_at,
      trialEndsAt: r.trial_ends_at,
      createdAt: r.created_at,
      plan: {
        id: r.plan_id,
        name: r.plan_name,
        description: r.plan_description,
        interval: r.plan_interval,
        priceAmount: r.plan_price_amount,
        currency: r.plan_currency,
      },
    })),
  };
}

/** How many subscriptions the member has. */
export function countMemberSubscriptions(db: Db | Tx, scope: MemberScope): Promise<number> {
  return countRows(subscriptionQuery(db, scope).select('subscriptions.id'));
}

/**
 * The courses of the given ids that the member is enrolled in, keyed by id: one query for any
 * number of ids (a course the member is not enrolled in is simply absent).
 */
export async function loadMemberCourses(
  db: Db | Tx,
  scope: MemberScope,
  courseIds: readonly string[],
): Promise<Map<string, CoursesTable>> {
  const out = new Map<string, CoursesTable>();
  if (courseIds.length === 0) return out;
  const rows = await db
    .selectFrom('courses')
    .selectAll('courses')
    .where('courses.school_id', '=', scope.schoolId)
    .where('courses.id', 'in', [...courseIds])
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('enrollments')
          .select('enrollments.id')
          .whereRef('enrollments.course_id', '=', 'courses.id')
          .where('enrollments.school_id', '=', scope.schoolId)
          .where('enrollments.user_id', '=', scope.userId),
      ),
    )
    .execute();
  for (const r of rows) out.set(r.id, r);
  return out;
}

/**
 * The curricula (sections with lectures, in order) of courses the member is enrolled in: two
 * queries for any number of courses.
 */
export async function loadMemberCurricula(
  db: Db | Tx,
  scope: MemberScope,
  courseIds: readonly string[],
): Promise<Map<string, Section[]>> {
  const out = new Map<string, Section[]>();
  const courses = await enrolledCourseIds(db, scope, courseIds);
  if (courses.length === 0) return out;
  const sections = await db
    .selectFrom('sections')
    .selectAll()
    .where('school_id', '=', scope.schoolId)
    .where('course_id', 'in', courses)
    .orderBy('course_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
  const lectures = await db
    .selectFrom('lectures')
    .selectAll()
    .where('school_id', '=', scope.schoolId)
    .where('course_id', 'in', courses)
    .orderBy('section_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
  const bySection = new Map<string, Lecture[]>();
  for (const l of lectures) {
    const list = bySection.get(l.section_id) ?? [];
    list.push({
      id: l.id,
      courseId: l.course_id,
      sectionId: l.section_id,
      title: l.title,
      type: l.type,
      durationSeconds: l.duration_seconds,
      isFreePreview: flag(l.is_free_preview),
      position: l.position,
      body: l.body,
      videoUrl: l.video_url,
      fileId: l.file_id,
      createdAt: l.created_at,
      updatedAt: l.updated_at,
    });
    bySection.set(l.section_id, list);
  }
  for (const id of courses) out.set(id, []);
  for (const s of sections) {
    out.get(s.course_id)?.push({
      id: s.id,
      courseId: s.course_id,
      title: s.title,
      position: s.position,
      lectures: bySection.get(s.id) ?? [],
      createdAt: s.created_at,
      updatedAt: s.updated_at,
    });
  }
  return out;
}

// The ids among `courseIds` the member is enrolled in (so no curriculum of another course leaks).
async function enrolledCourseIds(db: Db | Tx, scope: MemberScope, courseIds: readonly string[]) {
  if (courseIds.length === 0) return [];
  const rows = await db
    .selectFrom('enrollments')
    .select('course_id')
    .where('school_id', '=', scope.schoolId)
    .where('user_id', '=', scope.userId)
    .where('course_id', 'in', [...courseIds])
    .execute();
  return [...new Set(rows.map((r) => r.course_id))];
}

/** Per-lecture progress of the member's enrollments, keyed by enrollment then lecture: one query. */
export async function loadMemberLectureProgress(
  db: Db | Tx,
  scope: MemberScope,
  enrollmentIds: readonly string[],
): Promise<Map<string, Map<string, LectureProgress>>> {
  const out = new Map<string, Map<string, LectureProgress>>();
  if (enrollmentIds.length === 0) return out;
  const rows = await db
    .selectFrom('lecture_progress')
    .innerJoin('enrollments', 'enrollments.id', 'lecture_progress.enrollment_id')
    .selectAll('lecture_progress')
    .where('enrollments.school_id', '=', scope.schoolId)
    .where('enrollments.user_id', '=', scope.userId)
    .where('lecture_progress.enrollment_id', 'in', [...enrollmentIds])
    .execute();
  for (const r of rows) {
    const map = out.get(r.enrollment_id) ?? new Map<string, LectureProgress>();
    map.set(r.lecture_id, {
      lectureId: r.lecture_id,
      positionSeconds: r.position_seconds,
      completed: r.completed_at !== null,
      completedAt: r.completed_at,
      updatedAt: r.updated_at,
    });
    out.set(r.enrollment_id, map);
  }
  return out;
}

/** An event as a registration shows it (seat counts are the admin side's). */
export type MemberEvent = Omit<Event, 'registeredCount' | 'spotsLeft'>;

/** Events of the member's school by id: one query (used to show what a registration is for). */
export async function loadSchoolEvents(
  db: Db | Tx,
  scope: MemberScope,
  eventIds: readonly string[],
): Promise<Map<string, MemberEvent>> {
  const out = new Map<string, MemberEvent>();
  if (eventIds.length === 0) return out;
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('school_id', '=', scope.schoolId)
    .where('id', 'in', [...eventIds])
    .execute();
  for (const r of rows) {
    out.set(r.id, {
      id: r.id,
      schoolId: r.school_id,
      title: r.title,
      description: r.description,
      startsAt: r.starts_at,
      endsAt: r.ends_at,
      capacity: r.capacity,
      onlineUrl: r.online_url,
      location: r.location,
      visibility: r.visibility,
      status: r.status,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    });
  }
  return out;
}

/**
 * Records the member's progress in a lecture (enrolled, access not expired: 403 `not_enrolled`
 * / `access_expired`; unknown lecture: 404 `lecture_not_found`).
 */
export function recordMemberLectureProgress(
  db: Db | Tx,
  scope: MemberScope,
  input: { lectureId: string; positionSeconds: number; completed?: boolean },
): Promise<{ enrollment: Enrollment; lecture: LectureProgress }> {
  return recordLectureProgress(db, scope.schoolId, scope.userId, input);
}

/** Registers the member for an event of their school (idempotent; full/canceled/ended → 409). */
export async function registerMemberForEvent(
  db: Db | Tx,
  scope: MemberScope,
  eventId: string,
): Promise<EventRegistration> {
  return (await registerForEvent(db, scope.schoolId, eventId, scope.userId)).registration;
}

/**
 * Cancels the member's registration for an event: 404 for an unknown event, 409
 * `not_registered` without an active registration, 409 `event_ended` once the event is over.
 */
export async function cancelMemberEventRegistration(
  db: Db | Tx,
  scope: MemberScope,
  eventId: string,
): Promise<EventRegistration> {
  const event = await getEvent(db, scope.schoolId, eventId);
  const registration = await findRegistrationOf(db, scope.schoolId, eventId, scope.userId);
  if (!registration || registration.status === 'canceled') {
    throw new ProblemError(409, 'not_registered', 'Conflict', {
      detail: 'You are not registered for this event.',
    });
  }
  if (event.endsAt <= isoNow()) {
    throw new ProblemError(409, 'event_ended', 'Conflict', { detail: 'This event has already ended.' });
  }
  return cancelRegistration(db, scope.schoolId, registration.id);
}

/** Renames the member (1–200 characters, trimmed); 422 `validation_failed` otherwise. */
export async function renameMember(db: Db | Tx, scope: MemberScope, name: string): Promise<MemberProfile> {
  const c = new Checks();
  const trimmed = c.text('name', name, 200);
  c.done();
  await updateUserName(db, scope.userId, trimmed);
  return getMemberProfile(db, scope);
}
