import { z } from 'zod';
import { type Comment, getComment, listComments } from '../../domain/community/comments.ts';
import {
  type Form,
  type FormSubmission,
  getForm,
  getFormSubmission,
  listFormSubmissions,
  listForms,
} from '../../domain/community/forms.ts';
import { declare } from '../../domain/kernel/field-meta.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import { defineOperation } from '../define-operation.ts';
import { Id, named, PageQuery, pageOf, RangeQuery, SearchQuery, Timestamp, toSnake } from '../schemas.ts';

const CommentSchema = named(
  'Comment',
  z.object({
    id: Id,
    author_user_id: Id.nullable(),
    author_name: z.string().nullable(),
    target_type: z.enum(['lecture', 'post']),
    target_id: Id,
    course_id: Id.nullable().describe('For lecture comments: the lecture’s course.'),
    body: declare(z.string(), { kind: 'long_text' }),
    created_at: Timestamp,
  }),
  'A comment on a lecture or a post.',
);
const FormSchema = named(
  'Form',
  z.object({
    id: Id,
    title: z.string(),
    fields: z
      .array(z.record(z.string(), z.unknown()))
      .describe('Field definitions: name, label, type, required…'),
    submissions_count: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A form.',
);
const SubmissionSchema = named(
  'FormSubmission',
  z.object({
    id: Id,
    form_id: Id,
    email: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).describe('Answers keyed by field name.'),
    submitted_at: Timestamp,
  }),
  'One submission of a form.',
);

const presentComment = (c: Comment) => toSnake(c);
const presentForm = (f: Form) => toSnake(f);
const presentSubmission = (s: FormSubmission) => toSnake(s);

/** Read-only comment and form operations. */
export const commentFormOperations = [
  defineOperation({
    name: 'comments.list',
    summary: 'List comments',
    description: 'Comments oldest first; filter by target, course (lecture comments), author or date range.',
    scope: 'comments:read',
    method: 'GET',
    path: '/api/v1/comments',
    input: {
      query: z.strictObject({
        ...PageQuery,
        target_type: z.enum(['lecture', 'post']).optional(),
        target_id: Id.optional(),
        course_id: Id.optional(),
        author_user_id: Id.optional(),
        ...RangeQuery('comments created'),
      }),
    },
    output: pageOf(CommentSchema),
    handler: async (ctx, { query }) => {
      const page = await listComments(
        ctx.db,
        ctx.schoolId,
        {
          targetType: query.target_type,
          targetId: query.target_id,
          courseId: query.course_id,
          authorUserId: query.author_user_id,
          from: query.from,
          to: query.to,
        },
        query,
      );
      return mapPage(page, presentComment);
    },
  }),
  defineOperation({
    name: 'comments.get',
    summary: 'Get a comment',
    scope: 'comments:read',
    method: 'GET',
    path: '/api/v1/comments/{comment_id}',
    input: { params: z.strictObject({ comment_id: Id }) },
    output: CommentSchema,
    etag: true,
    examples: {
      response: {
        id: 'cmt_01jf3k6m2v8w9x0y1z2a3b4c5d',
        author_user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d',
        author_name: 'Sam',
        target_type: 'lecture',
        target_id: 'lec_01jf3k6m2v8w9x0y1z2a3b4c5d',
        course_id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d',
        body: 'Which brush do you use here?',
        created_at: '2026-03-01T09:00:00.000Z',
      },
    },
    handler: async (ctx, { params }) =>
      presentComment(await getComment(ctx.db, ctx.schoolId, params.comment_id)),
  }),
  defineOperation({
    name: 'forms.list',
    summary: 'List forms',
    scope: 'forms:read',
    method: 'GET',
    path: '/api/v1/forms',
    input: { query: z.strictObject({ ...PageQuery, search: SearchQuery }) },
    output: pageOf(FormSchema),
    handler: async (ctx, { query }) => {
      const page = await listForms(ctx.db, ctx.schoolId, { search: query.search }, query);
      return mapPage(page, presentForm);
    },
  }),
  defineOperation({
    name: 'forms.get',
    summary: 'Get a form',
    scope: 'forms:read',
    method: 'GET',
    path: '/api/v1/forms/{form_id}',
    input: { params: z.strictObject({ form_id: Id }) },
    output: FormSchema,
    etag: true,
    examples: {
      response: {
        id: 'frm_01jf3k6m2v8w9x0y1z2a3b4c5d',
        title: 'Contact',
        fields: [{ name: 'message', label: 'Your message', type: 'textarea', required: true }],
        submissions_count: 12,
        created_at: '2026-03-01T09:00:00.000Z',
        updated_at: '2026-03-01T09:00:00.000Z',
      },
    },
    handler: async (ctx, { params }) => presentForm(await getForm(ctx.db, ctx.schoolId, params.form_id)),
  }),
  defineOperation({
    name: 'forms.list_submissions',
    summary: 'List a form’s submissions',
    description: 'Oldest first; filter by `email` (substring) or date range.',
    scope: 'forms:read',
    method: 'GET',
    path: '/api/v1/forms/{form_id}/submissions',
    input: {
      params: z.strictObject({ form_id: Id }),
      query: z.strictObject({ ...PageQuery, email: SearchQuery, ...RangeQuery('submissions') }),
    },
    output: pageOf(SubmissionSchema),
    handler: async (ctx, { params, query }) => {
      const page = await listFormSubmissions(
        ctx.db,
        ctx.schoolId,
        params.form_id,
        { email: query.email, from: query.from, to: query.to },
        query,
      );
      return mapPage(page, presentSubmission);
    },
  }),
  defineOperation({
    name: 'forms.get_submission',
    summary: 'Get one submission',
    scope: 'forms:read',
    method: 'GET',
    path: '/api/v1/forms/{form_id}/submissions/{submission_id}',
    input: { params: z.strictObject({ form_id: Id, submission_id: Id }) },
    output: SubmissionSchema,
    etag: true,
    examples: {
      response: {
        id: 'fsb_01jf3k6m2v8w9x0y1z2a3b4c5d',
        form_id: 'frm_01jf3k6m2v8w9x0y1z2a3b4c5d',
        email: 'sam@example.com',
        data: { message: 'Do you offer group rates?' },
        submitted_at: '2026-03-01T09:00:00.000Z',
      },
    },
    handler: async (ctx, { params }) =>
      presentSubmission(await getFormSubmission(ctx.db, ctx.schoolId, params.form_id, params.submission_id)),
  }),
];
