import { problem } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { loadCurricula } from '../catalog/curriculum.ts';
import type { Section } from '../catalog/curriculum-rows.ts';
import { countOrders, listOrders, type Order } from '../commerce/orders.ts';
import {
  countSubscriptions,
  listUserSubscriptions,
  type MemberSubscription,
} from '../commerce/subscriptions.ts';
import {
  cancelRegistration,
  countRegistrations,
  type EventRegistration,
  findRegistrationOf,
  listUserRegistrations,
  registerForEvent,
} from '../community/event-registrations.ts';
import { type Event, findEvents, getEvent, listEvents } from '../community/events.ts';
import type { Page, PageParams } from '../kernel/pagination.ts';
import type { CoursesTable } from '../kernel/tables.ts';
import { countEnrollments, type Enrollment, type EnrollmentState } from '../learning/enrollments.ts';
import { type LectureProgress, toLectureProgress } from '../learning/lecture-progress.ts';
import { recordLectureProgress } from '../learning/record-progress.ts';
import { validPersonName } from '../school/person-name.ts';
import { updateUserName } from '../school/users.ts';
import { getMemberProfile, type MemberProfile, type MemberScope } from './member-reads.ts';

/**
 * One member's own data at one school: what the Account API and the member MCP tools read and
 * write. Every function takes the member's scope (from the access token; see member-reads.ts)
 * and reads only rows of that school and that user, so isolation holds by construction,
 * whatever the caller passes.
 */

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

/** The member's membership-plan subscriptions with their plan, newest first. */
export function listMemberSubscriptions(
  db: Db | Tx,
  scope: MemberScope,
  page: PageParams,
): Promise<Page<MemberSubscription>> {
  return listUserSubscriptions(db, scope.schoolId, scope.userId, page);
}

/** How many subscriptions the member has. */
export function countMemberSubscriptions(db: Db | Tx, scope: MemberScope): Promise<number> {
  return countSubscriptions(db, scope.schoolId, { userId: scope.userId });
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
  return loadCurricula(db, scope.schoolId, await enrolledCourseIds(db, scope, courseIds));
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
    map.set(r.lecture_id, toLectureProgress(r));
    out.set(r.enrollment_id, map);
  }
  return out;
}

/**
 * The event a member's registration is for, as that member sees it: the joining link only while
 * they hold a seat (a canceled registration shows the event without it). Every member surface
 * (the Account API, the member tools) shows a registration's event through this.
 */
export function eventOfRegistration(registration: Pick<EventRegistration, 'status'>, event: Event): Event {
  return registration.status === 'canceled' ? { ...event, onlineUrl: null } : event;
}

/** The school's scheduled events that have not ended, members-only ones included, soonest first. */
export function listMemberUpcomingEvents(
  db: Db | Tx,
  scope: MemberScope,
  page: PageParams,
): Promise<Page<Event>> {
  return listEvents(db, scope.schoolId, { endsAfter: isoNow(), status: 'scheduled' }, page);
}

/** Events of the member's school by id: one query (used to show what a registration is for). */
export function loadSchoolEvents(
  db: Db | Tx,
  scope: MemberScope,
  eventIds: readonly string[],
): Promise<Map<string, Event>> {
  return findEvents(db, scope.schoolId, eventIds);
}

/**
 * Records the member's progress in a lecture (enrolled, access not expired: 403 `not_enrolled`
 * / `access_expired`; unknown lecture: 404 `lecture_not_found`; a quiz completed without
 * passing answers: 422 `quiz_not_passed`).
 */
export function recordMemberLectureProgress(
  db: Db | Tx,
  scope: MemberScope,
  input: {
    lectureId: string;
    positionSeconds: number;
    completed?: boolean;
    answers?: Array<number | null>;
  },
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
    throw problem('not_registered', {
      detail: 'You are not registered for this event.',
    });
  }
  if (event.endsAt <= isoNow()) {
    throw problem('event_ended', { detail: 'This event has already ended.' });
  }
  return cancelRegistration(db, scope.schoolId, registration.id);
}

/** Renames the member under the one name rule (person-name.ts); 422 `validation_failed` otherwise. */
export async function renameMember(db: Db | Tx, scope: MemberScope, name: string): Promise<MemberProfile> {
  await updateUserName(db, scope.userId, validPersonName(name));
  return getMemberProfile(db, scope);
}
