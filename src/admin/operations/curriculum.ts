import { z } from 'zod';
import {
  createLecture,
  createSection,
  deleteLecture,
  deleteSection,
  getCurriculum,
  getLecture,
  getSection,
  reorderLectures,
  reorderSections,
  updateLecture,
  updateSection,
} from '../../domain/catalog/curriculum.ts';
import {
  LECTURE_TYPES,
  type Lecture,
  LectureCreate,
  LecturePatch,
  type Section,
  SectionCreate,
  SectionPatch,
} from '../../domain/catalog/curriculum-rows.ts';
import { declare } from '../../domain/kernel/field-meta.ts';
import type { OperationContext } from '../define-operation.ts';
import { defineOperation } from '../define-operation.ts';
import { bodyOf, Id, named, Timestamp, toCamel, toSnake } from '../schemas.ts';

const LectureSchema = named(
  'Lecture',
  z.object({
    id: Id,
    course_id: Id,
    section_id: Id,
    title: z.string(),
    type: z.enum(LECTURE_TYPES),
    duration_seconds: z.number().int(),
    is_free_preview: z.boolean(),
    position: z.number().int().describe('1-based within the section.'),
    body: z.string().nullable().describe('Markdown, for text lectures.'),
    video_url: declare(z.string(), { kind: 'url' }).nullable(),
    file_id: Id.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A lecture.',
);
const SectionSchema = named(
  'Section',
  z.object({
    id: Id,
    course_id: Id,
    title: z.string(),
    position: z.number().int().describe('1-based within the course.'),
    lectures: z.array(LectureSchema),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A section with its lectures in order.',
);
const CurriculumSchema = named(
  'Curriculum',
  z.object({ course_id: Id, sections: z.array(SectionSchema) }),
  'A course’s sections and lectures, in order.',
);

const presentLecture = (l: Lecture) => toSnake(l);
const presentSection = (s: Section) => ({ ...toSnake(s), lectures: s.lectures.map(presentLecture) });

const ByCourse = z.strictObject({ course_id: Id });
const BySection = z.strictObject({ section_id: Id });
const ByLecture = z.strictObject({ lecture_id: Id });
const LECTURE_EXAMPLE = {
  id: 'lec_01jf3k6m2v8w9x0y1z2a3b4c5d',
  course_id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d',
  section_id: 'sec_01jf3k6m2v8w9x0y1z2a3b4c5d',
  title: 'Materials',
  type: 'video',
  duration_seconds: 420,
  is_free_preview: true,
  position: 1,
  body: null,
  video_url: 'https://videos.example/1.mp4',
  file_id: null,
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};
const SECTION_EXAMPLE = {
  id: 'sec_01jf3k6m2v8w9x0y1z2a3b4c5d',
  course_id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d',
  title: 'Getting started',
  position: 1,
  lectures: [LECTURE_EXAMPLE],
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};

/** Who saves a lecture through an operation: the caller's user and roles (curriculum.ts's file rule). */
const editorOf = (ctx: OperationContext) => ({ userId: ctx.principal.userId, roles: ctx.principal.roles });

const getSectionOp = defineOperation({
  name: 'curriculum.get_section',
  summary: 'Get a section with its lectures',
  scope: 'curriculum:read',
  method: 'GET',
  path: '/api/v1/sections/{section_id}',
  input: { params: BySection },
  output: SectionSchema,
  etag: true,
  examples: { response: SECTION_EXAMPLE },
  handler: async (ctx, { params }) =>
    presentSection(await getSection(ctx.db, ctx.schoolId, params.section_id)),
});
const getLectureOp = defineOperation({
  name: 'curriculum.get_lecture',
  summary: 'Get a lecture',
  scope: 'curriculum:read',
  method: 'GET',
  path: '/api/v1/lectures/{lecture_id}',
  input: { params: ByLecture },
  output: LectureSchema,
  etag: true,
  examples: { response: LECTURE_EXAMPLE },
  handler: async (ctx, { params }) =>
    presentLecture(await getLecture(ctx.db, ctx.schoolId, params.lecture_id)),
});

/** Sections and lectures under a course, and their order. */
export const curriculumOperations = [
  defineOperation({
    name: 'curriculum.get',
    summary: 'Get a course’s curriculum',
    scope: 'curriculum:read',
    method: 'GET',
    path: '/api/v1/courses/{course_id}/curriculum',
    input: { params: ByCourse },
    output: CurriculumSchema,
    etag: true,
    examples: { response: { course_id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d', sections: [SECTION_EXAMPLE] } },
    handler: async (ctx, { params }) => ({
      course_id: params.course_id,
      sections: (await getCurriculum(ctx.db, ctx.schoolId, params.course_id)).map(presentSection),
    }),
  }),
  defineOperation({
    name: 'curriculum.create_section',
    summary: 'Add a section to a course',
    scope: 'curriculum:write',
    method: 'POST',
    path: '/api/v1/courses/{course_id}/sections',
    input: {
      params: ByCourse,
      body: bodyOf(SectionCreate),
    },
    output: SectionSchema,
    status: 201,
    etag: true,
    examples: { request: { title: 'Getting started' } },
    handler: async (ctx, { params, body }) =>
      presentSection(await createSection(ctx.db, ctx.schoolId, params.course_id, body)),
  }),
  getSectionOp,
  defineOperation({
    name: 'curriculum.update_section',
    summary: 'Rename a section',
    scope: 'curriculum:write',
    method: 'PATCH',
    path: '/api/v1/sections/{section_id}',
    input: { params: BySection, body: bodyOf(SectionPatch) },
    output: SectionSchema,
    etag: true,
    current: getSectionOp.handler,
    handler: async (ctx, { params, body }) =>
      presentSection(await updateSection(ctx.db, ctx.schoolId, params.section_id, body)),
  }),
  defineOperation({
    name: 'curriculum.delete_section',
    summary: 'Delete a section and its lectures',
    scope: 'curriculum:write',
    method: 'DELETE',
    path: '/api/v1/sections/{section_id}',
    input: { params: BySection },
    handler: async (ctx, { params }) => deleteSection(ctx.db, ctx.schoolId, params.section_id),
  }),
  defineOperation({
    name: 'curriculum.reorder_sections',
    summary: 'Reorder a course’s sections',
    description: '`section_ids` must list every section of the course exactly once, in the new order.',
    scope: 'curriculum:write',
    method: 'PUT',
    path: '/api/v1/courses/{course_id}/sections/order',
    input: { params: ByCourse, body: z.strictObject({ section_ids: z.array(Id).max(1000) }) },
    output: CurriculumSchema,
    handler: async (ctx, { params, body }) => ({
      course_id: params.course_id,
      sections: (await reorderSections(ctx.db, ctx.schoolId, params.course_id, body.section_ids)).map(
        presentSection,
      ),
    }),
  }),
  defineOperation({
    name: 'curriculum.create_lecture',
    summary: 'Add a lecture to a section',
    scope: 'curriculum:write',
    method: 'POST',
    path: '/api/v1/sections/{section_id}/lectures',
    input: {
      params: BySection,
      body: bodyOf(LectureCreate),
    },
    output: LectureSchema,
    status: 201,
    etag: true,
    examples: {
      request: {
        title: 'Materials',
        type: 'video',
        duration_seconds: 420,
        video_url: 'https://videos.example/1.mp4',
        is_free_preview: true,
      },
    },
    handler: async (ctx, { params, body }) =>
      presentLecture(
        await createLecture(ctx.db, ctx.schoolId, params.section_id, toCamel(body), editorOf(ctx)),
      ),
  }),
  getLectureOp,
  defineOperation({
    name: 'curriculum.update_lecture',
    summary: 'Update a lecture',
    scope: 'curriculum:write',
    method: 'PATCH',
    path: '/api/v1/lectures/{lecture_id}',
    input: { params: ByLecture, body: bodyOf(LecturePatch) },
    output: LectureSchema,
    etag: true,
    current: getLectureOp.handler,
    handler: async (ctx, { params, body }) =>
      presentLecture(
        await updateLecture(ctx.db, ctx.schoolId, params.lecture_id, toCamel(body), editorOf(ctx)),
      ),
  }),
  defineOperation({
    name: 'curriculum.delete_lecture',
    summary: 'Delete a lecture',
    scope: 'curriculum:write',
    method: 'DELETE',
    path: '/api/v1/lectures/{lecture_id}',
    input: { params: ByLecture },
    handler: async (ctx, { params }) => deleteLecture(ctx.db, ctx.schoolId, params.lecture_id),
  }),
  defineOperation({
    name: 'curriculum.reorder_lectures',
    summary: 'Reorder a section’s lectures',
    description: '`lecture_ids` must list every lecture of the section exactly once, in the new order.',
    scope: 'curriculum:write',
    method: 'PUT',
    path: '/api/v1/sections/{section_id}/lectures/order',
    input: { params: BySection, body: z.strictObject({ lecture_ids: z.array(Id).max(1000) }) },
    output: SectionSchema,
    handler: async (ctx, { params, body }) =>
      presentSection(await reorderLectures(ctx.db, ctx.schoolId, params.section_id, body.lecture_ids)),
  }),
];
