import { z } from 'zod';
import { findCourse, findCourseBySlug } from '../domain/courses.ts';
import { ENROLLMENT_STATES, findEnrollmentOf } from '../domain/enrollments.ts';
import type { EventRegistration } from '../domain/event-registrations.ts';
import {
  cancelMemberEventRegistration,
  listMemberEventRegistrations,
  listMemberOrders,
  loadMemberCurricula,
  loadMemberLectureProgress,
  loadSchoolEvents,
  type MemberScope,
  recordMemberLectureProgress,
  registerMemberForEvent,
} from '../domain/member-account.ts';
import { listMemberEnrollmentSummaries, type MemberEnrollment } from '../domain/member-reads.ts';
import { MAX_PAGE_LIMIT } from '../domain/pagination.ts';
import { problems } from '../errors/problem-error.ts';
import type { AppContext } from '../http/context.ts';
import { type AnyMcpTool, defineTool, READ_ONLY, type ToolCall } from './tool.ts';

/**
 * The member's own data at their school, over the same `domain/member-account.ts` functions as
 * the Account GraphQL API. The school and user come from the token, never from arguments.
 */

function memberScope(call: ToolCall): MemberScope {
  // The HTTP gate admits member tools only with a token holding their scope.
  if (!call.principal) throw problems.forbidden('This tool needs a member access token.');
  return { schoolId: call.principal.schoolId, userId: call.principal.userId };
}

const limitArg = z
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE_LIMIT)
  .optional()
  .describe('Page size, 1-100 (default 20).');
const cursorArg = z.string().max(200).optional().describe('nextCursor of the previous page.');

const enrollmentShape = z.object({
  id: z.string(),
  course: z.object({ id: z.string(), slug: z.string(), title: z.string() }),
  enrolledAt: z.string(),
  expiresAt: z.string().nullable().describe('Null means lifetime access.'),
  hasLifetimeAccess: z.boolean(),
  active: z.boolean().describe('False once access has expired.'),
  progressPercent: z.number(),
  completedAt: z.string().nullable(),
  lastWatchedLecture: z
    .object({ lectureId: z.string(), positionSeconds: z.number().int(), watchedAt: z.string().nullable() })
    .nullable(),
});

function toEnrollment(e: MemberEnrollment): z.input<typeof enrollmentShape> {
  return {
    id: e.id,
    course: e.course,
    enrolledAt: e.enrolledAt,
    expiresAt: e.expiresAt,
    hasLifetimeAccess: e.lifetime,
    active: e.active,
    progressPercent: e.progressPercent,
    completedAt: e.completedAt,
    lastWatchedLecture: e.lastLectureId
      ? {
          lectureId: e.lastLectureId,
          positionSeconds: e.lastPositionSeconds ?? 0,
          watchedAt: e.lastWatchedAt,
        }
      : null,
  };
}

const registrationShape = z.object({
  id: z.string(),
  status: z.enum(['registered', 'canceled', 'attended']),
  registeredAt: z.string(),
  canceledAt: z.string().nullable(),
  event: z.object({
    id: z.string(),
    title: z.string(),
    startsAt: z.string(),
    endsAt: z.string(),
    status: z.string(),
    onlineUrl: z.string().nullable(),
    location: z.string().nullable(),
  }),
});

async function toRegistrations(ctx: AppContext, scope: MemberScope, regs: EventRegistration[]) {
  const events = await loadSchoolEvents(
    ctx.db,
    scope,
    regs.map((r) => r.eventId),
  );
  return regs.map((r) => {
    const e = events.get(r.eventId);
    return {
      id: r.id,
      status: r.status,
      registeredAt: r.registeredAt,
      canceledAt: r.canceledAt,
      event: {
        ...r.event,
        status: e?.status ?? 'scheduled',
        // The joining link is for people holding a seat.
        onlineUrl: r.status === 'canceled' ? null : (e?.onlineUrl ?? null),
        location: e?.location ?? null,
      },
    };
  });
}

const myCourses = defineTool({
  name: 'my_courses',
  title: 'My courses',
  description:
    'The courses you are enrolled in at your school, with access expiry, progress percent and the lecture you watched last.',
  audience: 'member',
  scope: 'account:read',
  input: z.object({
    state: z.enum(ENROLLMENT_STATES).optional().describe('Only enrollments in this state.'),
    limit: limitArg,
    cursor: cursorArg,
  }),
  output: z.object({ enrollments: z.array(enrollmentShape), nextCursor: z.string().nullable() }),
  annotations: READ_ONLY,
  run: async (call, input) => {
    const page = await listMemberEnrollmentSummaries(
      call.ctx.db,
      memberScope(call),
      { limit: input.limit, cursor: input.cursor },
      input.state,
    );
    return { enrollments: page.data.map(toEnrollment), nextCursor: page.next_cursor };
  },
  summarize: (out) =>
    `You are enrolled in ${out.enrollments.length} course(s)${out.nextCursor ? ' (more on the next page)' : ''}.`,
});

const myCourseProgress = defineTool({
  name: 'my_course_progress',
  title: 'My progress in a course',
  description:
    'Your progress in one course you are enrolled in, lecture by lecture (lecture ids for record_progress included).',
  audience: 'member',
  scope: 'account:read',
  input: z.object({ course: z.string().min(1).max(200).describe('The course slug (or id).') }),
  output: z.object({
    enrollment: enrollmentShape,
    sections: z.array(
      z.object({
        title: z.string(),
        lectures: z.array(
          z.object({
            id: z.string(),
            title: z.string(),
            type: z.string(),
            durationSeconds: z.number().int(),
            completed: z.boolean(),
            positionSeconds: z.number().int(),
          }),
        ),
      }),
    ),
  }),
  annotations: READ_ONLY,
  run: async (call, input) => {
    const scope = memberScope(call);
    const db = call.ctx.db;
    const course =
      (await findCourseBySlug(db, scope.schoolId, input.course.toLowerCase())) ??
      (await findCourse(db, scope.schoolId, input.course));
    const enrollment = course && (await findEnrollmentOf(db, scope.schoolId, scope.userId, course.id));
    if (!course || !enrollment)
      throw problems.notFound(`You are not enrolled in a course "${input.course}".`);
    const curricula = await loadMemberCurricula(db, scope, [course.id]);
    const progress = (await loadMemberLectureProgress(db, scope, [enrollment.id])).get(enrollment.id);
    return {
      enrollment: toEnrollment(enrollment),
      sections: (curricula.get(course.id) ?? []).map((s) => ({
        title: s.title,
        lectures: s.lectures.map((l) => ({
          id: l.id,
          title: l.title,
          type: l.type,
          durationSeconds: l.durationSeconds,
          completed: progress?.get(l.id)?.completed ?? false,
          positionSeconds: progress?.get(l.id)?.positionSeconds ?? 0,
        })),
      })),
    };
  },
  summarize: (out) => `"${out.enrollment.course.title}": ${out.enrollment.progressPercent}% complete.`,
});

const myOrders = defineTool({
  name: 'my_orders',
  title: 'My orders',
  description:
    'Your orders at your school, newest first, with items and amounts (minor units of the currency).',
  audience: 'member',
  scope: 'account:read',
  input: z.object({ limit: limitArg, cursor: cursorArg }),
  output: z.object({
    orders: z.array(
      z.object({
        id: z.string(),
        number: z.string(),
        status: z.string(),
        currency: z.string(),
        subtotalAmount: z.number().int(),
        discountAmount: z.number().int(),
        totalAmount: z.number().int(),
        refundedAmount: z.number().int(),
        couponCode: z.string().nullable(),
        createdAt: z.string(),
        items: z.array(
          z.object({
            productType: z.string(),
            productId: z.string(),
            title: z.string(),
            quantity: z.number().int(),
            unitAmount: z.number().int(),
            totalAmount: z.number().int(),
          }),
        ),
      }),
    ),
    nextCursor: z.string().nullable(),
  }),
  annotations: READ_ONLY,
  run: async (call, input) => {
    const page = await listMemberOrders(call.ctx.db, memberScope(call), {
      limit: input.limit,
      cursor: input.cursor,
    });
    return {
      orders: page.data.map((o) => ({
        id: o.id,
        number: o.number,
        status: o.status,
        currency: o.currency,
        subtotalAmount: o.subtotalAmount,
        discountAmount: o.discountAmount,
        totalAmount: o.totalAmount,
        refundedAmount: o.refundedAmount,
        couponCode: o.couponCode,
        createdAt: o.createdAt,
        items: o.items.map(({ id: _id, ...item }) => item),
      })),
      nextCursor: page.next_cursor,
    };
  },
  summarize: (out) => `${out.orders.length} order(s).`,
});

const myRegistrations = defineTool({
  name: 'my_event_registrations',
  title: 'My event registrations',
  description: 'The events you registered for at your school, with their times and how to join.',
  audience: 'member',
  scope: 'account:read',
  input: z.object({ limit: limitArg, cursor: cursorArg }),
  output: z.object({ registrations: z.array(registrationShape), nextCursor: z.string().nullable() }),
  annotations: READ_ONLY,
  run: async (call, input) => {
    const scope = memberScope(call);
    const page = await listMemberEventRegistrations(call.ctx.db, scope, {
      limit: input.limit,
      cursor: input.cursor,
    });
    return { registrations: await toRegistrations(call.ctx, scope, page.data), nextCursor: page.next_cursor };
  },
  summarize: (out) => `${out.registrations.length} event registration(s).`,
});

const recordProgress = defineTool({
  name: 'record_progress',
  title: 'Record progress in a lecture',
  description:
    'Records where you are in a lecture of a course you are enrolled in (position in seconds; completed=true marks it done). Completed lectures stay completed.',
  audience: 'member',
  scope: 'account:write',
  input: z.object({
    lectureId: z
      .string()
      .min(1)
      .max(64)
      .describe('A lecture id from my_course_progress or get_course_outline.'),
    positionSeconds: z.number().int().min(0).max(1_000_000),
    completed: z.boolean().optional(),
  }),
  output: z.object({
    enrollment: enrollmentShape,
    lecture: z.object({
      lectureId: z.string(),
      positionSeconds: z.number().int(),
      completed: z.boolean(),
      completedAt: z.string().nullable(),
    }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (call, input) => {
    const result = await recordMemberLectureProgress(call.ctx.db, memberScope(call), input);
    const { updatedAt: _u, ...lecture } = result.lecture;
    return { enrollment: toEnrollment(result.enrollment), lecture };
  },
  summarize: (out) =>
    `Recorded ${out.lecture.positionSeconds}s${out.lecture.completed ? ' (completed)' : ''}; course progress ${out.enrollment.progressPercent}%.`,
});

const registerForEvent = defineTool({
  name: 'register_for_event',
  title: 'Register for an event',
  description:
    'Registers you for an event of your school (ids from list_upcoming_events). Registering twice is harmless; a full, canceled or ended event is refused.',
  audience: 'member',
  scope: 'account:write',
  input: z.object({ eventId: z.string().min(1).max(64) }),
  output: z.object({ registration: registrationShape }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (call, input) => {
    const scope = memberScope(call);
    const registration = await registerMemberForEvent(call.ctx.db, scope, input.eventId);
    return { registration: (await toRegistrations(call.ctx, scope, [registration]))[0] };
  },
  summarize: (out) =>
    `You are registered for "${out.registration.event.title}" (${out.registration.event.startsAt}).`,
});

const cancelRegistration = defineTool({
  name: 'cancel_event_registration',
  title: 'Cancel an event registration',
  description: 'Gives up your seat at an event of your school that has not ended.',
  audience: 'member',
  scope: 'account:write',
  input: z.object({ eventId: z.string().min(1).max(64) }),
  output: z.object({ registration: registrationShape }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: async (call, input) => {
    const scope = memberScope(call);
    const registration = await cancelMemberEventRegistration(call.ctx.db, scope, input.eventId);
    return { registration: (await toRegistrations(call.ctx, scope, [registration]))[0] };
  },
  summarize: (out) => `Your registration for "${out.registration.event.title}" is canceled.`,
});

/** The member tools: reads with `account:read`, changes with `account:write`. */
export const MEMBER_TOOLS: readonly AnyMcpTool[] = [
  myCourses,
  myCourseProgress,
  myOrders,
  myRegistrations,
  recordProgress,
  registerForEvent,
  cancelRegistration,
];
