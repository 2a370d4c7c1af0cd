import { z } from 'zod';
import {
  createLecturer,
  deleteLecturer,
  getLecturer,
  type Lecturer,
  LecturerCreate,
  LecturerPatch,
  listLecturers,
  updateLecturer,
} from '../../domain/catalog/lecturers.ts';
import { declare } from '../../domain/kernel/field-meta.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import { defineOperation } from '../define-operation.ts';
import { bodyOf, Id, named, PageQuery, pageOf, Timestamp, toCamel, toSnake } from '../schemas.ts';

const LecturerSchema = named(
  'Lecturer',
  z.object({
    id: Id,
    user_id: Id.nullable().describe('The member account behind the profile, if any.'),
    name: z.string(),
    headline: z.string().nullable(),
    bio: declare(z.string(), { kind: 'long_text' }).nullable(),
    avatar_url: declare(z.string(), { kind: 'url' }).nullable(),
    courses: z.array(z.object({ id: Id, title: z.string(), slug: z.string(), status: z.string() })),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A lecturer’s profile and courses.',
);
const present = (l: Lecturer) => toSnake(l);
const ById = z.strictObject({ lecturer_id: Id });

const get = defineOperation({
  name: 'lecturers.get',
  summary: 'Get a lecturer',
  scope: 'lecturers:read',
  method: 'GET',
  path: '/api/v1/lecturers/{lecturer_id}',
  input: { params: ById },
  output: LecturerSchema,
  etag: true,
  examples: {
    response: {
      id: 'lct_01jf3k6m2v8w9x0y1z2a3b4c5d',
      user_id: null,
      name: 'Mina Park',
      headline: 'Painter and teacher',
      bio: 'Twenty years of watercolour.',
      avatar_url: null,
      courses: [
        {
          id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d',
          title: 'Intro to Watercolour',
          slug: 'intro-to-watercolour',
          status: 'published',
        },
      ],
      created_at: '2026-03-01T09:00:00.000Z',
      updated_at: '2026-03-01T09:00:00.000Z',
    },
  },
  handler: async (ctx, { params }) => present(await getLecturer(ctx.db, ctx.schoolId, params.lecturer_id)),
});

/** Lecturer profile operations (assign them to courses with `courses.update`). */
export const lecturerOperations = [
  defineOperation({
    name: 'lecturers.list',
    summary: 'List lecturers',
    scope: 'lecturers:read',
    method: 'GET',
    path: '/api/v1/lecturers',
    input: { query: z.strictObject(PageQuery) },
    output: pageOf(LecturerSchema),
    handler: async (ctx, { query }) => {
      const page = await listLecturers(ctx.db, ctx.schoolId, query);
      return mapPage(page, present);
    },
  }),
  get,
  defineOperation({
    name: 'lecturers.create',
    summary: 'Create a lecturer profile',
    description: 'Linking a member who already has a profile is a 409 `lecturer_exists`.',
    scope: 'lecturers:write',
    method: 'POST',
    path: '/api/v1/lecturers',
    input: {
      body: bodyOf(LecturerCreate),
    },
    output: LecturerSchema,
    status: 201,
    etag: true,
    examples: { request: { name: 'Mina Park', headline: 'Painter and teacher' } },
    handler: async (ctx, { body }) => present(await createLecturer(ctx.db, ctx.schoolId, toCamel(body))),
  }),
  defineOperation({
    name: 'lecturers.update',
    summary: 'Update a lecturer profile',
    scope: 'lecturers:write',
    method: 'PATCH',
    path: '/api/v1/lecturers/{lecturer_id}',
    input: { params: ById, body: bodyOf(LecturerPatch) },
    output: LecturerSchema,
    etag: true,
    current: get.handler,
    handler: async (ctx, { params, body }) =>
      present(await updateLecturer(ctx.db, ctx.schoolId, params.lecturer_id, toCamel(body))),
  }),
  defineOperation({
    name: 'lecturers.delete',
    summary: 'Delete a lecturer profile',
    description: 'Removes them from their courses; the member account stays.',
    scope: 'lecturers:write',
    method: 'DELETE',
    path: '/api/v1/lecturers/{lecturer_id}',
    input: { params: ById },
    handler: async (ctx, { params }) => deleteLecturer(ctx.db, ctx.schoolId, params.lecturer_id),
  }),
];
