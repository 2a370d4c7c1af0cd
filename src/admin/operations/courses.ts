import { z } from 'zod';
import {
  COURSE_STATUSES,
  type Course,
  CourseCreate,
  CoursePatch,
  createCourse,
  deleteCourse,
  getCourse,
  listCourses,
  updateCourse,
} from '../../domain/catalog/courses.ts';
import { declare } from '../../domain/kernel/field-meta.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import { defineOperation } from '../define-operation.ts';
import {
  Amount,
  bodyOf,
  Currency,
  Id,
  named,
  PageQuery,
  pageOf,
  SearchQuery,
  Timestamp,
  toCamel,
  toSnake,
} from '../schemas.ts';

const CourseSchema = named(
  'Course',
  z.object({
    id: Id,
    slug: z.string(),
    title: z.string(),
    description: declare(z.string(), { kind: 'long_text' }),
    status: z.enum(COURSE_STATUSES),
    price_amount: Amount.describe('Minor units of `currency`; 0 is free.'),
    currency: Currency,
    image_url: declare(z.string(), { kind: 'url' }).nullable(),
    checkout_url: declare(z.string(), { kind: 'url' })
      .nullable()
      .describe('The school’s own checkout page of a paid course.'),
    published_at: Timestamp.nullable(),
    lecturers: z.array(z.object({ id: Id, name: z.string() })),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A course.',
);
const present = (c: Course) => toSnake(c);

const ById = z.strictObject({ course_id: Id });
const example = {
  id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d',
  slug: 'intro-to-watercolour',
  title: 'Intro to Watercolour',
  description: 'Six weeks from first wash to finished landscape.',
  status: 'published',
  price_amount: 4900,
  currency: 'EUR',
  image_url: null,
  checkout_url: 'https://pay.example/watercolour',
  published_at: '2026-03-01T09:00:00.000Z',
  lecturers: [{ id: 'lec_01jf3k6m2v8w9x0y1z2a3b4c5d', name: 'Mina Park' }],
  created_at: '2026-02-20T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};

const get = defineOperation({
  name: 'courses.get',
  summary: 'Get a course',
  scope: 'courses:read',
  method: 'GET',
  path: '/api/v1/courses/{course_id}',
  input: { params: ById },
  output: CourseSchema,
  etag: true,
  examples: { response: example },
  handler: async (ctx, { params }) => present(await getCourse(ctx.db, ctx.schoolId, params.course_id)),
});

/** The course operations. */
export const courseOperations = [
  defineOperation({
    name: 'courses.list',
    summary: 'List courses',
    description:
      'Courses oldest first; filter by `status`, `lecturer_id` or a `search` on title, slug and description.',
    scope: 'courses:read',
    method: 'GET',
    path: '/api/v1/courses',
    input: {
      query: z.strictObject({
        ...PageQuery,
        status: z.enum(COURSE_STATUSES).optional(),
        lecturer_id: Id.optional(),
        search: SearchQuery,
      }),
    },
    output: pageOf(CourseSchema),
    examples: { response: { data: [example], next_cursor: 'Y3JzXzAxamYzazZtMnY4dzl4MHkxejJhM2I0YzVk' } },
    handler: async (ctx, { query }) => {
      const page = await listCourses(
        ctx.db,
        ctx.schoolId,
        { status: query.status, search: query.search, lecturerId: query.lecturer_id },
        query,
      );
      return mapPage(page, present);
    },
  }),
  get,
  defineOperation({
    name: 'courses.create',
    summary: 'Create a course',
    description:
      'New courses are drafts unless `status` says otherwise; the currency defaults to the school’s. Without a `slug` one is made from the title (`Intro to Watercolour` → `intro-to-watercolour`, then `-2`, `-3` … when taken); a given slug must be free (409 `slug_taken`).',
    scope: 'courses:write',
    method: 'POST',
    path: '/api/v1/courses',
    input: {
      body: bodyOf(CourseCreate),
    },
    output: CourseSchema,
    status: 201,
    etag: true,
    examples: {
      request: {
        slug: 'intro-to-watercolour',
        title: 'Intro to Watercolour',
        price_amount: 4900,
        currency: 'EUR',
      },
      response: example,
    },
    handler: async (ctx, { body }) => present(await createCourse(ctx.db, ctx.schoolId, toCamel(body))),
  }),
  defineOperation({
    name: 'courses.update',
    summary: 'Update a course',
    description:
      'Send only what changes. Publishing the first time stamps `published_at`. `lecturer_ids` replaces the list.',
    scope: 'courses:write',
    method: 'PATCH',
    path: '/api/v1/courses/{course_id}',
    input: { params: ById, body: bodyOf(CoursePatch) },
    output: CourseSchema,
    etag: true,
    current: get.handler,
    examples: { request: { status: 'published' }, response: example },
    handler: async (ctx, { params, body }) =>
      present(await updateCourse(ctx.db, ctx.schoolId, params.course_id, toCamel(body))),
  }),
  defineOperation({
    name: 'courses.delete',
    summary: 'Delete a course',
    description:
      'Deletes the course with its curriculum and enrollments. Archive it (`status: archived`) to keep students’ access instead.',
    scope: 'courses:write',
    method: 'DELETE',
    path: '/api/v1/courses/{course_id}',
    input: { params: ById },
    handler: async (ctx, { params }) => deleteCourse(ctx.db, ctx.schoolId, params.course_id),
  }),
];
