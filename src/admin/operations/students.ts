import { z } from 'zod';
import { declare } from '../../domain/kernel/field-meta.ts';
import { Text } from '../../domain/kernel/fields.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import {
  ENROLLMENT_SOURCES,
  ENROLLMENT_STATES,
  type Enrollment,
  enroll,
  getEnrollment,
  listEnrollments,
  listLectureProgress,
  setEnrollmentExpiry,
  unenroll,
} from '../../domain/learning/enrollments.ts';
import { findMemberIdByEmail, findMembership } from '../../domain/school/memberships.ts';
import { findUserByEmail, normalizeEmail } from '../../domain/school/users.ts';
import { problem, problems } from '../../errors/problem-error.ts';
import { defineOperation, type OperationContext } from '../define-operation.ts';
import { Email, Id, named, PageQuery, pageOf, Timestamp, toSnake } from '../schemas.ts';

const EnrollmentSchema = named(
  'Enrollment',
  z.object({
    id: Id,
    user_id: Id,
    course_id: Id,
    course: z.object({ id: Id, title: z.string(), slug: z.string() }),
    user: z.object({ id: Id, name: z.string(), email: z.string() }),
    enrolled_at: Timestamp,
    expires_at: Timestamp.nullable().describe('Null: lifetime access.'),
    lifetime: z.boolean(),
    active: z.boolean().describe('False once `expires_at` has passed.'),
    progress_percent: declare(z.number().int().min(0).max(100), { kind: 'percent' }),
    completed_at: Timestamp.nullable(),
    last_lecture_id: Id.nullable(),
    last_position_seconds: z.number().int().nullable(),
    last_watched_at: Timestamp.nullable(),
    source: z.enum(ENROLLMENT_SOURCES),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A student’s access to a course and their progress.',
);
const ProgressSchema = named(
  'EnrollmentProgress',
  z.object({
    enrollment: EnrollmentSchema,
    lectures: z.array(
      z.object({
        lecture_id: Id,
        position_seconds: z.number().int(),
        completed: z.boolean(),
        completed_at: Timestamp.nullable(),
        updated_at: Timestamp,
      }),
    ),
  }),
  'An enrollment with per-lecture progress in curriculum order.',
);
const present = (e: Enrollment) => toSnake(e);
const ById = z.strictObject({ enrollment_id: Id });
const example = {
  id: 'enr_01jf3k6m2v8w9x0y1z2a3b4c5d',
  user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d',
  course_id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d',
  course: {
    id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d',
    title: 'Intro to Watercolour',
    slug: 'intro-to-watercolour',
  },
  user: { id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d', name: 'Sam', email: 'sam@example.com' },
  enrolled_at: '2026-03-01T09:00:00.000Z',
  expires_at: null,
  lifetime: true,
  active: true,
  progress_percent: 40,
  completed_at: null,
  last_lecture_id: 'lec_01jf3k6m2v8w9x0y1z2a3b4c5d',
  last_position_seconds: 312,
  last_watched_at: '2026-03-04T18:20:00.000Z',
  source: 'manual',
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-04T18:20:00.000Z',
};

// The person must already belong to the school, named by user id or by email. Someone who does
// not is invited (with the course), never enrolled unasked: the answer for an email that is no
// member is the same whether or not it has an account at another school.
async function resolveStudent(
  ctx: OperationContext,
  body: { user_id?: string; email?: string },
): Promise<string> {
  if (body.user_id) {
    if (!(await findMembership(ctx.db, ctx.schoolId, body.user_id)))
      throw problems.notFound('No such member at this school.');
    return body.user_id;
  }
  const email = normalizeEmail(body.email!);
  const memberId = await findMemberIdByEmail(ctx.db, ctx.schoolId, email);
  if (memberId) return memberId;
  throw problem('not_a_member', {
    detail: `${email} is not a member of this school. Invite them as a student with this course (POST /api/v1/members with "roles": ["student"] and "course_ids"): they are enrolled when they accept.`,
  });
}

/**
 * The user a list is narrowed to: by id, or by email (looked up once). Null when the email
 * names nobody (or someone other than user_id): the list is then empty.
 */
export async function userFilter(
  ctx: OperationContext,
  userId?: string,
  email?: string,
): Promise<string | undefined | null> {
  if (email === undefined) return userId;
  const user = await findUserByEmail(ctx.db, email);
  if (!user || (userId !== undefined && user.id !== userId)) return null;
  return user.id;
}

const get = defineOperation({
  name: 'students.get_enrollment',
  summary: 'Get an enrollment',
  scope: 'students:read',
  method: 'GET',
  path: '/api/v1/enrollments/{enrollment_id}',
  input: { params: ById },
  output: EnrollmentSchema,
  etag: true,
  examples: { response: example },
  handler: async (ctx, { params }) =>
    present(await getEnrollment(ctx.db, ctx.schoolId, params.enrollment_id)),
});

/** Student operations: enrollments, access expiry, progress. */
export const studentOperations = [
  defineOperation({
    name: 'students.list_enrollments',
    summary: 'List enrollments',
    description:
      'Enrollments oldest first; filter by `course_id`, `user_id` or `email`, and `state` (`active`/`expired` by expiry, `completed`/`in_progress`/`not_started` by progress).',
    scope: 'students:read',
    method: 'GET',
    path: '/api/v1/enrollments',
    input: {
      query: z.strictObject({
        ...PageQuery,
        course_id: Id.optional(),
        user_id: Id.optional(),
        email: Email.optional().describe('The student’s email (exact, case-insensitive).'),
        state: z.enum(ENROLLMENT_STATES).optional(),
      }),
    },
    output: pageOf(EnrollmentSchema),
    handler: async (ctx, { query }) => {
      const userId = await userFilter(ctx, query.user_id, query.email);
      if (userId === null) return { data: [], next_cursor: null };
      const page = await listEnrollments(
        ctx.db,
        ctx.schoolId,
        { courseId: query.course_id, userId, state: query.state },
        query,
      );
      return mapPage(page, present);
    },
  }),
  get,
  defineOperation({
    name: 'students.enroll',
    summary: 'Enroll a student in a course',
    description:
      'Give `user_id` or `email` of a member of the school. Someone who is not a member is a 409 `not_a_member` (whether or not they have an account elsewhere): invite them with `POST /api/v1/members` and `course_ids`, and they are enrolled when they accept. `expires_at` null or omitted is lifetime access. Enrolling twice is a 409 `already_enrolled`.',
    scope: 'students:write',
    method: 'POST',
    path: '/api/v1/enrollments',
    input: {
      body: z
        .strictObject({
          course_id: Id,
          user_id: Id.optional(),
          email: Email.optional().describe('A member’s email (exact, case-insensitive).'),
          name: declare(Text(120), { ignored: true })
            .optional()
            .describe('Accepted for compatibility and ignored.'),
          expires_at: Timestamp.nullable().optional(),
        })
        .refine((b) => (b.user_id === undefined) !== (b.email === undefined), {
          message: 'give exactly one of user_id and email',
          path: ['user_id'],
        }),
    },
    output: EnrollmentSchema,
    status: 201,
    etag: true,
    examples: {
      request: { course_id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d', email: 'sam@example.com', expires_at: null },
      response: example,
    },
    handler: async (ctx, { body }) => {
      const userId = await resolveStudent(ctx, body);
      return present(
        await enroll(ctx.db, ctx.schoolId, {
          userId,
          courseId: body.course_id,
          expiresAt: body.expires_at ?? null,
          source: 'manual',
        }),
      );
    },
  }),
  defineOperation({
    name: 'students.update_enrollment',
    summary: 'Set an enrollment’s expiry',
    description: '`expires_at` a date ends access then; null gives lifetime access.',
    scope: 'students:write',
    method: 'PATCH',
    path: '/api/v1/enrollments/{enrollment_id}',
    input: { params: ById, body: z.strictObject({ expires_at: Timestamp.nullable() }) },
    output: EnrollmentSchema,
    etag: true,
    current: get.handler,
    examples: { request: { expires_at: '2027-01-01T00:00:00Z' } },
    handler: async (ctx, { params, body }) =>
      present(await setEnrollmentExpiry(ctx.db, ctx.schoolId, params.enrollment_id, body.expires_at)),
  }),
  defineOperation({
    name: 'students.unenroll',
    summary: 'Unenroll a student',
    description: 'Removes access and the progress of this enrollment.',
    scope: 'students:write',
    method: 'DELETE',
    path: '/api/v1/enrollments/{enrollment_id}',
    input: { params: ById },
    handler: async (ctx, { params }) => unenroll(ctx.db, ctx.schoolId, params.enrollment_id),
  }),
  defineOperation({
    name: 'students.get_progress',
    summary: 'Get a student’s progress in a course',
    scope: 'students:read',
    method: 'GET',
    path: '/api/v1/enrollments/{enrollment_id}/progress',
    input: { params: ById },
    output: ProgressSchema,
    examples: {
      response: {
        enrollment: example,
        lectures: [
          {
            lecture_id: 'lec_01jf3k6m2v8w9x0y1z2a3b4c5d',
            position_seconds: 312,
            completed: false,
            completed_at: null,
            updated_at: '2026-03-04T18:20:00.000Z',
          },
        ],
      },
    },
    handler: async (ctx, { params }) => {
      const [enrollment, lectures] = await Promise.all([
        getEnrollment(ctx.db, ctx.schoolId, params.enrollment_id),
        listLectureProgress(ctx.db, ctx.schoolId, params.enrollment_id),
      ]);
      return { enrollment: present(enrollment), lectures: lectures.map((l) => toSnake(l, [])) };
    },
  }),
];
