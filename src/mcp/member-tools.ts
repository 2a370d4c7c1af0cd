import { z } from 'zod';
import { findCourse, findCourseBySlug } from '../domain/catalog/courses.ts';
import { ENROLLMENT_STATES, findEnrollmentOf } from '../domain/learning/enrollments.ts';
import { decideLectureAccess, lectureContent } from '../domain/learning/lecture-access.ts';
import {
  listMemberEventRegistrations,
  listMemberOrders,
  loadMemberCurricula,
  loadMemberLectureProgress,
} from '../domain/member/member-account.ts';
import { listMemberEnrollmentSummaries } from '../domain/member/member-reads.ts';
import { problems } from '../errors/problem-error.ts';
import { READ_ONLY } from './hints.ts';
import {
  enrollmentShape,
  memberScope,
  quizShape,
  registrationShape,
  toEnrollment,
  toRegistrations,
} from './member-shapes.ts';
import { MEMBER_WRITE_TOOLS } from './member-write-tools.ts';
import { type AnyMcpTool, defineTool } from './tool.ts';
import { cursorArg, limitArg, toolInput } from './tool-input.ts';

/** The member's reads (`account:read`), over the Account API's domain functions. */

const myCourses = defineTool({
  name: 'my_courses',
  title: 'My courses',
  description:
    'The courses you are enrolled in at your school, with access expiry, progress percent and the lecture you watched last.',
  audience: 'member',
  scope: 'account:read',
  input: toolInput({
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
    "Your progress in one course you are enrolled in, lecture by lecture (lecture ids for record_progress included), with each quiz's questions and choices (answer them with record_progress).",
  audience: 'member',
  scope: 'account:read',
  input: toolInput({
    course: z.string().min(1).max(200).describe('The course slug (or id).'),
  }),
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
            quiz: quizShape.nullable(),
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
          quiz: lectureContent(
            l,
            decideLectureAccess({ course, lecture: l, person: { member: true }, enrollment, staff: false }),
          ).quiz,
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
  input: toolInput({ limit: limitArg, cursor: cursorArg }),
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
  input: toolInput({ limit: limitArg, cursor: cursorArg }),
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

/** The member tools: reads with `account:read`, changes with `account:write`. */
export const MEMBER_TOOLS: readonly AnyMcpTool[] = [
  myCourses,
  myCourseProgress,
  myOrders,
  myRegistrations,
  ...MEMBER_WRITE_TOOLS,
];
